print("beacon-bench: placeholder")

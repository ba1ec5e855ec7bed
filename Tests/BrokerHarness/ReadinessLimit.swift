/// How long the harness waits for a broker to listen, to save and exit, or for a helper program
/// to finish, before it calls that a hang: the same bound as TestSupport's `readinessLimit`, which
/// the harness cannot import (the benchmarks use the harness, and TestSupport links Swift Testing).
let harnessReadinessLimit: Duration = .seconds(120)

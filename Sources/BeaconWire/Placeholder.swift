/// Placeholder: replaced by the wire codec.
public enum BeaconWirePlaceholder {}

/// Placeholder: replaced by the broker harness.
public enum BrokerHarnessPlaceholder {}

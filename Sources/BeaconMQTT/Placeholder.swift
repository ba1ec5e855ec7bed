/// Placeholder: replaced by the MQTT client.
public enum BeaconMQTTPlaceholder {}

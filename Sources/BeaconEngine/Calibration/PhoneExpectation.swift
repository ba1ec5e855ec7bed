/// What a store's calibration says of a phone's level against the walking tag's before the phone
/// has been heard there: what the tag's adverts claimed, against which a phone's own claim says
/// how much louder it is; and how much louder again the store's phones were heard, measured on
/// its ordinary traffic.
struct PhoneExpectation: Sendable, Equatable {
    /// The measured power the walking tag's adverts carried, dBm; nil when the calibration does
    /// not say, and every device is expected as loud as the tag (``DeviceOffset``).
    let tagMeasuredPower: Double?
    /// How much louder than the tag the store's phones were heard beyond their adverts' claims,
    /// dB; nil when no traffic was measured, and the store learns it from its phones
    /// (``OffsetCentre``).
    let phonesOffset: Double?
}

import CMosquitto
import Foundation

/// Lets `switch rc { case MOSQ_ERR_NO_CONN: … }` match a libmosquitto return code.
func ~= (pattern: mosq_err_t, value: Int32) -> Bool { value == Int32(pattern.rawValue) }

extension MQTTError {
    /// Maps the return code of a libmosquitto call made by this client. `topic` and
    /// `payloadSize` are the arguments of the call, for the error's context; `packetLimit` is the
    /// maximum packet size the broker announced, if any.
    static func fromReturnCode(
        _ rc: Int32, topic: String = "", payloadSize: Int = 0, packetLimit: Int? = nil
    ) -> MQTTError {
        switch rc {
        case MOSQ_ERR_NO_CONN:
            return .notConnected
        case MOSQ_ERR_CONN_LOST, MOSQ_ERR_KEEPALIVE:
            return .connectionLost(code: Int(rc), reason: Mosquitto.errorText(rc))
        case MOSQ_ERR_PAYLOAD_SIZE:
            return .payloadTooLarge(size: payloadSize, limit: Mosquitto.maximumPayload)
        case MOSQ_ERR_OVERSIZE_PACKET:
            return .payloadTooLarge(size: payloadSize, limit: packetLimit ?? Mosquitto.maximumPayload)
        case MOSQ_ERR_MALFORMED_UTF8:
            return .invalidTopic(topic: topic, reason: "not valid UTF-8")
        case MOSQ_ERR_TLS, MOSQ_ERR_TLS_HANDSHAKE, MOSQ_ERR_OCSP:
            return .tlsFailure(detail: Mosquitto.errorText(rc))
        case MOSQ_ERR_AUTH, MOSQ_ERR_ACL_DENIED:
            return .notAuthorized(reason: Mosquitto.errorText(rc))
        default:
            return .protocolError(code: Int(rc), reason: Mosquitto.errorText(rc))
        }
    }

    /// Maps a refused CONNACK. The code space depends on the protocol: MQTT 3.1.1 return codes
    /// 1–5, MQTT v5 reason codes 0x80 and above.
    static func connackRefusal(_ code: Int32, protocolVersion: MQTTProtocolVersion) -> MQTTError {
        switch protocolVersion {
        case .v311:
            let text = Mosquitto.connackText(code)
            // 4: bad user name or password, 5: not authorised.
            return code == 4 || code == 5
                ? .notAuthorized(reason: text) : .connectionRefused(reasonCode: Int(code), reason: text)
        case .v5:
            let text = Mosquitto.reasonText(code)
            return code == Int32(MQTT_RC_BAD_USERNAME_OR_PASSWORD.rawValue)
                || code == Int32(MQTT_RC_NOT_AUTHORIZED.rawValue)
                ? .notAuthorized(reason: text) : .connectionRefused(reasonCode: Int(code), reason: text)
        }
    }

    /// Maps a failing v5 reason code (0x80 and above) in a PUBACK, PUBREC or SUBACK, or the
    /// 0x80 "failure" of an MQTT 3.1.1 SUBACK.
    static func brokerReason(_ code: Int32) -> MQTTError {
        if code == Int32(MQTT_RC_NOT_AUTHORIZED.rawValue) {
            return .notAuthorized(reason: Mosquitto.reasonText(code))
        }
        return .protocolError(code: Int(code), reason: Mosquitto.reasonText(code))
    }

    /// Maps the `rc` of libmosquitto's disconnect callback for a connection that was up or being
    /// set up: a `MOSQ_ERR_*` value, or the broker's v5 DISCONNECT reason code (0x80 and above).
    /// `tlsDetail` is what OpenSSL logged through libmosquitto, which `rc` alone does not carry.
    static func disconnectReason(_ rc: Int32, tlsDetail: String?) -> MQTTError {
        if rc >= 0x80 {
            return .connectionLost(code: Int(rc), reason: Mosquitto.reasonText(rc))
        }
        switch rc {
        case MOSQ_ERR_TLS, MOSQ_ERR_TLS_HANDSHAKE, MOSQ_ERR_OCSP:
            return .tlsFailure(detail: tlsDetail ?? Mosquitto.errorText(rc))
        default:
            return .connectionLost(code: Int(rc), reason: Mosquitto.errorText(rc))
        }
    }

    /// Maps the failure of the blocking `mosquitto_connect*` call, with `errno` read right
    /// after it returned on the same thread.
    static func connectFailure(
        _ rc: Int32, errno code: Int32, host: String, port: Int, tlsDetail: String?
    ) -> MQTTError {
        switch rc {
        case MOSQ_ERR_ERRNO:
            return .hostUnreachable(host: host, port: port, errno: code, reason: String(cString: strerror(code)))
        case MOSQ_ERR_EAI, MOSQ_ERR_LOOKUP:
            return .hostUnreachable(host: host, port: port, errno: 0, reason: "host name lookup failed")
        case MOSQ_ERR_TLS, MOSQ_ERR_TLS_HANDSHAKE, MOSQ_ERR_OCSP:
            return .tlsFailure(detail: tlsDetail ?? Mosquitto.errorText(rc))
        default:
            return fromReturnCode(rc)
        }
    }
}

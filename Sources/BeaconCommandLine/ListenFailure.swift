#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// An address a program cannot listen on (`--listen`, `--metrics`), in words a person can act
/// on: which address, what is wrong, and the flag that picks another — never NIO's
/// `bind(descriptor:ptr:bytes:): Address already in use (errno: 98)`.
public enum ListenFailure {
    /// One line for `error`, met listening on `address` as `flag` asked.
    public static func message(_ error: any Error, address: String, flag: String) -> String {
        switch (error as? IOError)?.errnoCode {
        case EADDRINUSE?:
            return "\(address) is in use by another program (another instance?): pick a free port with \(flag) HOST:PORT"
        case EADDRNOTAVAIL?:
            return "\(address) is not an address of this machine: give one of its addresses with \(flag) (0.0.0.0 for every interface)"
        case EACCES?:
            return "\(address): permission denied (ports below 1024 need privileges): pick a port above 1023 with \(flag)"
        default:
            return "cannot listen on \(address) (\(flag)): \(error)"
        }
    }
}

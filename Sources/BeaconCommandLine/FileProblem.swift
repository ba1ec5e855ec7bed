import Foundation

/// A file a program cannot read or write, in words a person can act on — the path, the flag that
/// named it and what is wrong — never Foundation's `Error Domain=NSCocoaErrorDomain Code=260 …`.
public enum FileProblem {
    /// Whether `error` is Foundation's or the C library's about a file (missing, permission,
    /// no space), rather than one about the file's content.
    public static func isFileSystemError(_ error: any Error) -> Bool {
        let domain = (error as NSError).domain
        return domain == NSCocoaErrorDomain || domain == NSPOSIXErrorDomain
    }

    /// "`flag` `path` cannot be read (no such file)", with what `path` is now.
    public static func cannotRead(_ path: String, flag: String? = nil) -> String {
        "\(flag.map { $0 + " " } ?? "")\(path) cannot be read (\(reason(reading: path)))"
    }

    /// "`flag` `path` cannot be written (the directory /x does not exist)", with what is in the way.
    public static func cannotWrite(_ path: String, flag: String? = nil) -> String {
        "\(flag.map { $0 + " " } ?? "")\(path) cannot be written (\(reason(writing: path)))"
    }

    /// "`flag` `path` cannot be written (Not a directory)": the C library's words for the errno
    /// under Foundation's `error`, or what is in the way of `path` when it carries none.
    public static func cannotWrite(_ path: String, flag: String? = nil, error: any Error) -> String {
        guard let reason = systemReason(error) else { return cannotWrite(path, flag: flag) }
        return "\(flag.map { $0 + " " } ?? "")\(path) cannot be written (\(reason))"
    }

    /// The `strerror` text of the errno Foundation's `error` wraps (its own, or its underlying
    /// error's), if any.
    static func systemReason(_ error: any Error) -> String? {
        var current: NSError? = error as NSError
        while let error = current {
            if error.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(error.code))) }
            current = (error.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
        }
        return nil
    }

    /// Why `path` cannot be read, in a few words.
    public static func reason(reading path: String) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
            return FileManager.default.fileExists(atPath: parent) ? "no such file" : "no such directory: \(parent)"
        }
        if isDirectory.boolValue { return "a directory, not a file" }
        return FileManager.default.isReadableFile(atPath: path) ? "not readable as this user, or not text" : "permission denied"
    }

    /// Why `path` cannot be written, in a few words.
    public static func reason(writing path: String) -> String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return "a directory, not a file" }
            if !FileManager.default.isWritableFile(atPath: path) { return "permission denied" }
        }
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory) else {
            return "the directory \(parent) does not exist"
        }
        guard isDirectory.boolValue else { return "\(parent) is a file, not a directory" }
        return FileManager.default.isWritableFile(atPath: parent) ? "the disk may be full" : "permission denied in \(parent)"
    }
}

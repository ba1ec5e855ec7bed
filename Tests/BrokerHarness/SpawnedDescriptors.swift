import Foundation
#if canImport(Glibc)
public import Glibc
#endif

/// What a child started with `posix_spawn` keeps of the test process's file descriptors.
public enum SpawnedDescriptors {
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 on), which Swift's Glibc module
    /// does not import; looked up in the process's global scope (RTLD_DEFAULT, null on glibc).
    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }

    /// Adds to `actions` the closing of every descriptor from `first` on, after the actions
    /// already added. A socket that one of the process's servers accepted (NIO accepts without
    /// close-on-exec) would otherwise stay open in the child, and the client the server closed
    /// would not learn it until the child exits.
    public static func closeAll(from first: Int32, in actions: inout posix_spawn_file_actions_t) {
        guard let closeFrom else { return }
        _ = closeFrom(&actions, first)
    }
}

import Foundation
import LogStore

/// Sizes of the engine's bounded-memory steps, for tests: environment variables make them small,
/// so that a small store goes through many of the pieces a large one does and a test of the
/// tool's memory need not build the large one. Read here, once per command, and passed down as
/// options; the library never reads the environment. Unset (as for every user), the engine's
/// defaults hold.
///
/// - `LOGBOOK_KEY_CHECK_BLOCKS`: MiB of a key directory file's table that open checks
///   at a time (12; a multiple of 3).
/// - `LOGBOOK_KEY_PASS_BYTES`: table bytes each pass of `verify`'s comparison of the key
///   directory file with the log holds (25 MiB).
/// - `LOGBOOK_COMPACTION_WINDOW`: live records a compaction sorts at once (2^19).
enum StoreTuning {
    /// The variable `name` as a positive number, if set to one.
    private static func value(_ name: String) -> Int? {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Sets what the environment says in `options` of a store's open.
    static func apply(to options: inout LogStoreOptions) {
        if let mib = value("LOGBOOK_KEY_CHECK_BLOCKS") {
            options.keyDirectoryCheckPieceMiB = mib
        }
        if let window = value("LOGBOOK_COMPACTION_WINDOW") { options.compactionWindow = window }
    }

    /// The table bytes a pass of `verify`'s key directory comparison holds, if the environment
    /// sets them (`nil`: the engine's default).
    static var keyDirectoryPassBytes: Int? { value("LOGBOOK_KEY_PASS_BYTES") }
}

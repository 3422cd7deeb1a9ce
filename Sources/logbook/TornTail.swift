import Foundation
import LogStore

/// What every command says of a torn tail — an incomplete last commit at the end of the newest
/// segment, the normal result of a crash during a write (FORMAT.md, "Recovery", and its table of
/// what each tool does): one warning line on standard error, and never a failure by itself. A
/// read-only command leaves the bytes alone and reads the store as it was before the torn
/// commit; a command that writes cuts them, as every open for writing does, into a `*.cut` file.
enum TornTail {
    /// The warning for the torn tail `recovery` dropped or cut, if it met one.
    static func warning(_ recovery: RecoveryReport) -> String? {
        guard let cut = recovery.cuts.first else { return nil }
        let what =
            "\(cut.path) at offset \(cut.offset): a torn tail of "
            + "\(Formatting.byteCount(cut.length)) (an incomplete last commit, what a crash "
            + "leaves: \(cut.reason))"
        guard let kept = cut.keptIn else {
            return what + " was left out; the next open for writing cuts it"
        }
        return what + " was cut; its bytes are kept in \(kept)"
    }

    /// Writes the warning for `recovery`, if any, to standard error.
    static func warn(_ recovery: RecoveryReport?, _ console: Console) {
        guard let recovery, let warning = warning(recovery) else { return }
        console.error("warning: " + warning)
    }

    /// The sentence each command's help ends with.
    static let readOnlyHelp =
        "A torn tail (an incomplete last commit at the end of the newest segment, what a crash "
        + "during a write leaves) is not damage: it is left out with a warning on standard "
        + "error, and the exit status stays 0 (FORMAT.md, \"Recovery\")."
    static let writerHelp =
        "A torn tail (an incomplete last commit at the end of the newest segment, what a crash "
        + "during a write leaves) is not damage: opening the store for writing cuts it into a "
        + "*.cut file beside the segments, with a warning on standard error, and the exit status "
        + "stays 0 (FORMAT.md, \"Recovery\")."
}

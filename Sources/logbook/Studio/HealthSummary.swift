import Foundation

/// The store's health as the overview shows it: the summary of the one consistency check that
/// `open` and `logbook verify` share, with its first findings. A value type.
struct HealthSummary: Sendable {
    /// Whether damage was found (or the check could not run).
    var isDamaged: Bool
    /// `OK: 1 segment, 3 commits, …` as `logbook verify` ends.
    var line: String
    /// The first errors and warnings, `path at offset N: message`.
    var errors: [String]
    var warnings: [String]
    /// When the check ran.
    var checkedAt: Date

    /// Findings shown at most, of each kind.
    static let shownFindings = 20

    /// Runs the check of the store at `path` (read-only; memory bounded whatever its size).
    static func check(_ path: String) -> HealthSummary {
        let quiet = ProgressLine(output: FileOutput(descriptor: 2), enabled: false)
        do {
            let outcome = try Verifier(path: path).run(progress: quiet)
            return HealthSummary(
                isDamaged: outcome.isDamaged, line: outcome.summary,
                errors: outcome.errors.prefix(shownFindings).map(\.description),
                warnings: outcome.warnings.prefix(shownFindings).map(\.description),
                checkedAt: Date())
        } catch {
            return HealthSummary(
                isDamaged: true, line: "the check could not run: \(error)", errors: [],
                warnings: [], checkedAt: Date())
        }
    }
}

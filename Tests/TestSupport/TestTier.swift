import Foundation

/// The test tiers (CONTRIBUTING.md, "Tests"): the default tier runs with every `swift test`; the
/// long tier with `LOGBOOK_LONG_TESTS=1`, at full size, for what is too slow for the default
/// one. A test that shrinks for the default tier keeps its long-tier count in ``pick(quick:long:)``.
public enum TestTier {
    /// Whether this is the long tier (`LOGBOOK_LONG_TESTS=1`).
    public static let isLong = ProcessInfo.processInfo.environment["LOGBOOK_LONG_TESTS"] == "1"

    /// `quick`, or `long` in the long tier.
    public static func pick<T>(quick: T, long: T) -> T { isLong ? long : quick }
}

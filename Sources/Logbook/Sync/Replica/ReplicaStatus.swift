import Foundation

/// Where a replica stands: how far behind each direction is, how many saves wait to go up, and
/// the last error. A value type, `Sendable`.
public struct ReplicaStatus: Sendable, Equatable, CustomStringConvertible {
    /// The replica's origin number in the database (`nil` before it first synced).
    public var origin: Int?
    /// The database's identity (`nil` before the store first synced).
    public var database: UUID?
    /// Saves of the store not yet in PostgreSQL.
    public var pendingSaves: Int
    /// How long the oldest of them has waited, in seconds (`nil` when none waits).
    public var upLag: Double?
    /// Changes committed in PostgreSQL that the store has not applied yet (as of ``checkedAt``).
    public var changesBehind: Int
    /// How long ago the oldest of them was committed, in seconds (`nil` when none is behind).
    public var downLag: Double?
    /// The change-log position the store has applied up to.
    public var appliedPosition: UInt64
    /// Saves sent up and transactions applied down since the replica started, with their
    /// changes (objects).
    public var savesSent = 0
    public var changesSent = 0
    public var transactionsApplied = 0
    public var changesApplied = 0
    /// Whether the replica is connected and syncing.
    public var isConnected = false
    /// The last error, if one happened (a description without credentials), and when.
    public var lastError: String?
    public var lastErrorAt: Date?
    /// When the lag figures were read.
    public var checkedAt: Date?

    public init(
        origin: Int? = nil, database: UUID? = nil, pendingSaves: Int = 0, upLag: Double? = nil,
        changesBehind: Int = 0, downLag: Double? = nil, appliedPosition: UInt64 = 0
    ) {
        self.origin = origin
        self.database = database
        self.pendingSaves = pendingSaves
        self.upLag = upLag
        self.changesBehind = changesBehind
        self.downLag = downLag
        self.appliedPosition = appliedPosition
    }

    /// One line: `replica 2: up 0 pending, down 0 behind (position 1234), last error: none`.
    public var description: String {
        var text = "replica \(origin.map(String.init) ?? "-"): up \(pendingSaves) pending"
        if let upLag { text += " (oldest \(Self.seconds(upLag)))" }
        text += ", down \(changesBehind) behind"
        if let downLag { text += " (oldest \(Self.seconds(downLag)))" }
        text += " at position \(appliedPosition)"
        text += ", last error: " + (lastError ?? "none")
        return text
    }

    static func seconds(_ value: Double) -> String {
        value < 10 ? String(format: "%.2f s", value) : String(format: "%.0f s", value)
    }
}

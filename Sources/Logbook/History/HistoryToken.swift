import Foundation

/// A position in a store's history: just after the commit with ``sequence``, in the store
/// named by ``storeIdentifier``.
///
/// Tokens come from ``ModelContainer/currentHistoryToken`` and from each
/// ``HistoryTransaction``; hand one back to ``ModelContainer/history(after:)`` to read the saves
/// after it, or to ``ModelContainer/context(asOf:)`` to see the store as it was. They stay valid
/// across restarts (keep them as `Codable` values or as their string form,
/// `<store identifier>:<sequence>`), for as long as the store's history retention keeps the
/// saves after them. A value type, `Sendable`.
public struct HistoryToken: Sendable, Hashable, Comparable, Codable, LosslessStringConvertible {
    /// The store the token belongs to: a random identifier given to the store when it was
    /// created (or first opened by a Logbook that keeps history).
    public let storeIdentifier: UUID
    /// The sequence number of the commit the token comes after (0: before the first).
    public let sequence: UInt64

    /// The token after commit `sequence` of the store `storeIdentifier`.
    public init(storeIdentifier: UUID, sequence: UInt64) {
        self.storeIdentifier = storeIdentifier
        self.sequence = sequence
    }

    /// Parses the string form `<store identifier>:<sequence>`; `nil` if `description` is not one.
    public init?(_ description: String) {
        guard let colon = description.lastIndex(of: ":"),
            let store = UUID(uuidString: String(description[..<colon])),
            let sequence = UInt64(description[description.index(after: colon)...])
        else { return nil }
        self.init(storeIdentifier: store, sequence: sequence)
    }

    /// `<store identifier>:<sequence>`, for example `8f14e45f-ceea-467f-a0e6-1c2b2c0e2c4b:42`.
    public var description: String { "\(storeIdentifier.uuidString.lowercased()):\(sequence)" }

    /// Orders tokens of one store by sequence number (tokens of different stores by identifier
    /// first, which means nothing but is consistent).
    public static func < (a: Self, b: Self) -> Bool {
        a.storeIdentifier == b.storeIdentifier
            ? a.sequence < b.sequence : a.storeIdentifier.uuidString < b.storeIdentifier.uuidString
    }

    private enum CodingKeys: String, CodingKey {
        case store, sequence
    }

    /// Decodes `{"store": "<identifier>", "sequence": 42}`.
    /// - Throws: `DecodingError` for a missing or malformed field.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        storeIdentifier = try container.decode(UUID.self, forKey: .store)
        sequence = try container.decode(UInt64.self, forKey: .sequence)
    }

    /// Encodes `{"store": "<identifier>", "sequence": 42}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(storeIdentifier, forKey: .store)
        try container.encode(sequence, forKey: .sequence)
    }
}

/// Operation codes of records inside a frame payload (FORMAT.md, "Records"). 0 is reserved.
enum RecordOp {
    static let put: UInt8 = 1
    static let delete: UInt8 = 2
    /// Names a keyspace: `id: varint, nameLength: varint, name: UTF-8`.
    static let defineKeyspace: UInt8 = 3
}

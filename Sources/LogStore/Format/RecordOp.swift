/// Operation codes of records inside a frame payload (FORMAT.md, "Records"). 0 is reserved.
enum RecordOp {
    static let put: UInt8 = 1
    static let delete: UInt8 = 2
    /// Names a keyspace: `id: varint, nameLength: varint, name: UTF-8`.
    static let defineKeyspace: UInt8 = 3
}

extension WriteBatch {
    /// Decodes the batch's operations in order. The buffers are valid only during `body`.
    func forEachOperation(
        _ body: (
            _ op: UInt8, _ keyspace: String, _ key: UnsafeRawBufferPointer,
            _ value: UnsafeRawBufferPointer?
        ) throws
            -> Void
    ) throws {
        try records.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let op = buffer[offset]
                offset += 1
                let local = Int(Varint.read(buffer, &offset)!)
                let keyLength = Int(Varint.read(buffer, &offset)!)
                let valueLength = op == RecordOp.put ? Int(Varint.read(buffer, &offset)!) : 0
                let key = UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + keyLength])
                offset += keyLength
                var value: UnsafeRawBufferPointer?
                if op == RecordOp.put {
                    value = UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + valueLength])
                    offset += valueLength
                }
                try body(op, keyspaceNames[local], key, value)
            }
        }
    }
}

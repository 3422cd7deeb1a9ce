/// Builds frames by hand (FORMAT.md, "Frames"), for tests that write what the store never would.
enum FrameBuilder {
    /// CRC-32C (Castagnoli), as FORMAT.md defines it.
    static func crc32c(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0x82F6_3B78 & (0 &- (crc & 1))) }
        }
        return crc ^ 0xFFFF_FFFF
    }

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// LEB128 of `value`.
    static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        repeat {
            var byte = UInt8(value & 0x7F)
            value >>= 7
            if value != 0 { byte |= 0x80 }
            bytes.append(byte)
        } while value != 0
        return bytes
    }

    /// A frame with a correct CRC over whatever it holds; `length` defaults to the payload's.
    static func frame(type: UInt8 = 1, sequence: UInt64, payload: [UInt8], length: UInt32? = nil)
        -> [UInt8]
    {
        let covered = le(length ?? UInt32(payload.count)) + [type] + le(sequence) + payload
        return le(crc32c(covered)) + covered
    }

    /// A put record: op 1, keyspace, key length, value length, key, value.
    static func put(keyspace: UInt64 = 1, key: [UInt8], value: [UInt8]) -> [UInt8] {
        [1] + varint(keyspace) + varint(UInt64(key.count)) + varint(UInt64(value.count)) + key
            + value
    }
}

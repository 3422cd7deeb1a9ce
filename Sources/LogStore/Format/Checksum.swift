import CCRC32C

/// CRC32C (Castagnoli) of bytes, as every frame and header carries (FORMAT.md, "Checksums").
enum Checksum {
    @inline(__always)
    static func crc32c(_ bytes: UnsafeRawBufferPointer, extending crc: UInt32 = 0) -> UInt32 {
        logbook_crc32c_extend(crc, bytes.baseAddress, bytes.count)
    }
}

/// Little-endian integer access to raw bytes. Callers check bounds first.
extension UnsafeRawBufferPointer {
    @inline(__always)
    func loadLE<T: FixedWidthInteger>(at offset: Int, as: T.Type) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

extension Array where Element == UInt8 {
    @inline(__always)
    mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// Overwrites `MemoryLayout<T>.size` bytes at `offset` with `value`, little-endian.
    @inline(__always)
    mutating func storeLE<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        withUnsafeMutableBytes {
            $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
        }
    }
}

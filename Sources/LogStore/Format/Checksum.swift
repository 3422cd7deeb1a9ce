import CCRC32C

/// CRC32C (Castagnoli) of bytes, as every frame and header carries (FORMAT.md, "Checksums").
enum Checksum {
    @inline(__always)
    static func crc32c(_ bytes: UnsafeRawBufferPointer, extending crc: UInt32 = 0) -> UInt32 {
        logbook_crc32c_extend(crc, bytes.baseAddress, bytes.count)
    }
}

/// Little-endian integer access to raw bytes, the package's one (Logbook's index sidecar uses it
/// too). Callers check bounds first.
extension UnsafeRawBufferPointer {
    @inlinable @inline(__always)
    package func loadLE<T: FixedWidthInteger>(at offset: Int, as: T.Type) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

extension Array where Element == UInt8 {
    @inlinable @inline(__always)
    package mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// Overwrites `MemoryLayout<T>.size` bytes at `offset` with `value`, little-endian.
    @inlinable @inline(__always)
    package mutating func storeLE<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        withUnsafeMutableBytes {
            $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
        }
    }
}

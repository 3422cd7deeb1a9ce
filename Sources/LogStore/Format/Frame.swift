/// Frame layout and limits (FORMAT.md, "Frames").
///
/// ```
/// crc:      u32  // CRC32C of bytes 4..<17+length (length, type, sequence, payload)
/// length:   u32  // payload bytes, ≤ Frame.maxPayload
/// type:     u8   // FrameType
/// sequence: u64  // the commit's sequence number, the same in every frame of a commit; 0 in a mark
/// payload:  [length]u8  // whole records, never split across frames; a mark's durable size
/// ```
enum Frame {
    static let headerSize = 17
    /// Payload size the writer aims for when it packs many records into one frame.
    static let targetPayload = 64 << 10
    /// Largest payload a reader accepts (1 GiB).
    static let maxPayload = 1 << 30
    /// Largest key.
    static let maxKeyLength = 65_535
    /// Largest value: a put record with the largest key must fit in one frame.
    static let maxValueLength = maxPayload - 128 - maxKeyLength
    /// Sequence numbers are below this (no writer comes near it), so the next number never
    /// overflows; a frame with a larger one is corruption.
    static let sequenceLimit: UInt64 = 1 << 63
}

/// What part of a commit a frame holds. 0 is reserved (a zero-filled region is never a frame).
enum FrameType: UInt8 {
    /// A whole commit.
    case full = 1
    /// The first frame of a commit spanning several frames.
    case first = 2
    case middle = 3
    /// The frame that completes a multi-frame commit.
    case last = 4
    /// Not part of a commit (format version 2): the size through which the segment was durable
    /// when the group write that it starts began, so recovery can tell a torn write from damage.
    case mark = 5
}

/// A mark frame's payload (FORMAT.md, "Sync marks").
enum SyncMark {
    static let payloadSize = 8
    static let frameSize = Frame.headerSize + payloadSize

    /// Whether the segment `bytes` ends with an intact mark.
    static func ends(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= FileHeader.size + frameSize else { return false }
        let scanner = SegmentScanner(bytes: bytes)
        guard case .success(let header) = scanner.checkFrame(at: bytes.count - frameSize) else {
            return false
        }
        return header.type == .mark
    }

    /// Appends a mark that records `durableSize`.
    static func append(durableSize: Int, to bytes: inout [UInt8]) {
        let start = bytes.count
        FrameHeader.appendPlaceholder(type: .mark, sequence: 0, to: &bytes)
        bytes.appendLE(UInt64(durableSize))
        FrameHeader.sealFrame(&bytes, at: start, type: .mark)
    }
}

/// A frame header read from a file, not yet checked against its CRC.
struct FrameHeader {
    var crc: UInt32
    var length: Int
    var rawType: UInt8
    var sequence: UInt64

    var type: FrameType? { FrameType(rawValue: rawType) }

    init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        crc = bytes.loadLE(at: offset, as: UInt32.self)
        length = Int(bytes.loadLE(at: offset + 4, as: UInt32.self))
        rawType = bytes[offset + 8]
        sequence = bytes.loadLE(at: offset + 9, as: UInt64.self)
    }

    /// Appends a frame's header with a zero CRC; ``sealFrame(_:at:)`` fills it in once the payload
    /// follows it.
    static func appendPlaceholder(type: FrameType, sequence: UInt64, to bytes: inout [UInt8]) {
        bytes.appendLE(UInt32(0))
        bytes.appendLE(UInt32(0))
        bytes.append(type.rawValue)
        bytes.appendLE(sequence)
    }

    /// Sets the length and CRC of the frame that starts at `start` and runs to the end of `bytes`.
    static func sealFrame(_ bytes: inout [UInt8], at start: Int, type: FrameType) {
        bytes.storeLE(UInt32(bytes.count - start - Frame.headerSize), at: start + 4)
        bytes[start + 8] = type.rawValue
        let crc = bytes.withUnsafeBytes {
            Checksum.crc32c(UnsafeRawBufferPointer(rebasing: $0[(start + 4)...]))
        }
        bytes.storeLE(crc, at: start)
    }
}

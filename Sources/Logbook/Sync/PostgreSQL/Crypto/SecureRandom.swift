#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Random bytes from the operating system's cryptographically secure generator:
/// `getentropy(3)` (the `getrandom` system call on Linux), with `/dev/urandom` as the fallback
/// for a kernel without it. For the SCRAM client nonce.
enum SecureRandom {
    /// `count` random bytes, or `nil` if the system has none to give.
    static func bytes(_ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let chunk = min(256, count - filled)  // getentropy's limit per call
            let status = bytes.withUnsafeMutableBytes {
                getentropy($0.baseAddress! + filled, chunk)
            }
            guard status == 0 else { return urandom(count) }
            filled += chunk
        }
        return bytes
    }

    private static func urandom(_ count: Int) -> [UInt8]? {
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = bytes.withUnsafeMutableBytes {
                read(fd, $0.baseAddress! + filled, count - filled)
            }
            if n > 0 {
                filled += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return nil
            }
        }
        return bytes
    }
}

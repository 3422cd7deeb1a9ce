extension LogInspector {
    /// Checks every hint file of the store at `path` against its segment: each must list exactly
    /// the segment's records (a hint that does not is ignored by `open`, so this is a warning, not
    /// data loss). Also lists hint files whose segment is missing.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)`` if the directory cannot be listed.
    public static func hintProblems(storeAt path: String) throws -> [Problem] {
        let fs = PosixFileSystem()
        var problems: [Problem] = []
        let names = try fs.contents(ofDirectory: path)
        for name in names where name.hasSuffix(".hint") {
            let hintPath = path + "/" + name
            let segmentName = String(name.dropLast(5)) + ".seg"
            guard let order = Segment.order(fromFileName: segmentName), names.contains(segmentName)
            else {
                problems.append(
                    Problem(
                        path: hintPath, offset: 0, reason: "hint file without its segment",
                        isTornTail: false))
                continue
            }
            do {
                let segment = try Segment(
                    directory: path, order: order, handle: 0, fileSystem: fs, growing: false)
                let file = try fs.open(hintPath, create: false, readOnly: true)
                defer { try? fs.close(file) }
                let size = Int(try fs.size(file))
                guard size <= segment.size * 4 + 1024 else {
                    problems.append(
                        Problem(
                            path: hintPath, offset: 0,
                            reason: "hint larger than its segment allows", isTornTail: false))
                    continue
                }
                var bytes = [UInt8](repeating: 0, count: size)
                _ = try bytes.withUnsafeMutableBytes { try fs.read(file, into: $0, at: 0) }
                if let reason = Hint.mismatch(bytes, segment: segment) {
                    problems.append(
                        Problem(path: hintPath, offset: 0, reason: reason, isTornTail: false))
                }
            } catch {
                problems.append(
                    Problem(path: hintPath, offset: 0, reason: "\(error)", isTornTail: false))
            }
        }
        return problems
    }
}

import Foundation

#if os(Linux)
    /// Resident kilobytes of this process's mappings of the files under `directory` whose
    /// paths end in `suffix` (all of them for ""), from `/proc/self/smaps`; `nil` if it cannot
    /// be read.
    package func residentKB(ofFilesUnder directory: String, endingIn suffix: String = "") -> Int? {
        // Read to the end (a /proc file reports size 0).
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/smaps") else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        var total = 0
        var inside = false
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.first?.contains("-") == true && fields.count >= 5 {
                inside =
                    fields.count >= 6 && fields[5].hasPrefix(directory)
                    && fields[5].hasSuffix(suffix)
            } else if inside && fields.first == "Rss:" && fields.count >= 2 {
                total += Int(fields[1]) ?? 0
            }
        }
        return total
    }
#endif

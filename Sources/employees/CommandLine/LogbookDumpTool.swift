import Foundation

/// `logbook dump` for the demo's last step. The dump is a function of the `logbook` tool, which
/// is an executable, not a library this one can link; so the demo runs the `logbook` binary
/// that `swift build` puts next to `employees`, and says so when it is not there.
enum LogbookDumpTool {
    /// The `logbook` executable beside this one, if built.
    static func locate() -> URL? {
        let ownPath =
            Bundle.main.executableURL?.resolvingSymlinksInPath()
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let candidate = ownPath.deletingLastPathComponent().appendingPathComponent("logbook")
        return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
    }

    /// The output lines of `logbook dump PATH`. Its standard error passes through to ours.
    ///
    /// - Throws: ``EmployeesError/store(_:)`` if the tool cannot start or exits non-zero.
    static func dump(storeAt path: String, tool: URL) throws(EmployeesError) -> [String] {
        let process = Process()
        process.executableURL = tool
        process.arguments = ["dump", path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        do {
            try process.run()
        } catch {
            throw .store("cannot run \(tool.path): \(error)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw .store("`logbook dump \(path)` failed with status \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false
        ).map(String.init).dropLast(while: { $0.isEmpty })
    }
}

extension Array where Element == String {
    /// The array without trailing elements matching `isTrailing`.
    fileprivate func dropLast(while isTrailing: (String) -> Bool) -> [String] {
        var result = self
        while let last = result.last, isTrailing(last) { result.removeLast() }
        return result
    }
}

import Foundation

/// The path of the executable `name` that this package builds, or `nil` if it is not built.
///
/// Looked up, in order: the environment variable `variable` (if given and set); next to the
/// running test binary and up to four directories above it (SwiftPM puts test bundles and
/// executables in one products directory; on macOS the binary is inside `X.xctest/Contents/MacOS`);
/// beside each loaded bundle; in the package's `.build/debug`.
package func builtExecutable(_ name: String, overriddenBy variable: String? = nil) -> String? {
    var candidates: [String] = []
    if let variable, let path = ProcessInfo.processInfo.environment[variable] {
        candidates.append(path)
    }
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    for _ in 0..<5 {
        directory.deleteLastPathComponent()
        candidates.append(directory.appendingPathComponent(name).path)
    }
    candidates += Bundle.allBundles.map {
        $0.bundleURL.deletingLastPathComponent().appendingPathComponent(name).path
    }
    // Tests/TestSupport/BuiltExecutable.swift → the package root.
    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(package.appendingPathComponent(".build/debug/" + name).path)
    return candidates.first { path in
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            && !isDirectory.boolValue && FileManager.default.isExecutableFile(atPath: path)
    }
}

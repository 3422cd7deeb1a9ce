// swift-tools-version: 6.0
// The benchmark suite: Logbook and SQLite on identical workloads (issue 6). A package of its own
// so the root package stays free of outside dependencies. Run from the repository root:
//   swift run -c release --package-path Benchmarks logbook-bench [workloads] [--num N] [--quick]
import Foundation
import PackageDescription

/// The root package (LogStore, Logbook).
let root = ".."

/// The Objects group's Logbook side compiles once the object layer (issue 3) is in the root
/// package; until then the group runs SQLite's side only and says so.
let objectLayer = FileManager.default.fileExists(
    atPath: "\(Context.packageDirectory)/\(root)/Sources/Logbook/Context/ModelContainer.swift")

let package = Package(
    name: "LogbookBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "logbook-bench", targets: ["logbook-bench"])
    ],
    dependencies: [
        .package(name: "Logbook", path: root)
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "logbook-bench",
            dependencies: [
                "CSQLite",
                .product(name: "LogStore", package: "Logbook"),
                .product(name: "Logbook", package: "Logbook"),
            ],
            swiftSettings: objectLayer ? [.define("LOGBOOK_OBJECTS")] : []
        ),
    ],
    swiftLanguageModes: [.v6]
)

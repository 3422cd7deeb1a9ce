// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Logbook",
    // macOS 15 for Synchronization's Atomic and Mutex, the newest API the code uses (Foundation's
    // Predicate needs 14). Linux needs no line. Other Apple platforms are not built or tested.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LogStore", targets: ["LogStore"]),
        .library(name: "Logbook", targets: ["Logbook"]),
        .executable(name: "logbook", targets: ["logbook"]),
        .executable(name: "employees", targets: ["employees"]),
    ],
    targets: [
        // LogStore's C: CRC32C (FORMAT.md, "Checksums"), and the key directory's entry checks
        // and cache prefetch hints. Only LogStore imports them.
        .target(name: "CCRC32C"),
        .target(name: "CKeyDirectory", dependencies: ["CCRC32C"]),
        .target(name: "LogStore", dependencies: ["CCRC32C", "CKeyDirectory"]),
        .target(name: "Logbook", dependencies: ["LogStore"]),
        .executableTarget(name: "logbook", dependencies: ["Logbook", "LogStore"]),
        // `logbook` so that `swift run employees demo` builds the tool its last step runs.
        .executableTarget(name: "employees", dependencies: ["Logbook", "logbook"]),
        .target(
            name: "TestSupport", dependencies: ["LogStore", "Logbook"], path: "Tests/TestSupport"),
        // The process `CrashTests.ProcessKillTests` kills; not a product.
        .executableTarget(
            name: "logbook-crash-child", dependencies: ["TestSupport"], path: "Tests/CrashChild"),
        // The process the replica's convergence tests run and kill; not a product.
        .executableTarget(
            name: "logbook-sync-child", dependencies: ["TestSupport"], path: "Tests/SyncChild"),
        // The writer, readers and backups `CrashTests.SoakTests` runs and kills; not a product.
        .executableTarget(
            name: "logbook-soak-child", dependencies: ["TestSupport"], path: "Tests/SoakChild"),
        .testTarget(
            name: "LogStoreTests", dependencies: ["LogStore", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(
            name: "LogbookTests", dependencies: ["Logbook", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(
            name: "LogbookCLITests", dependencies: ["Logbook", "LogStore", "TestSupport"]),
        .testTarget(name: "CrashTests", dependencies: ["LogStore", "Logbook", "TestSupport"]),
        // `logbook studio` in-process: its HTTP server, routes and pages.
        .testTarget(
            name: "StudioTests", dependencies: ["logbook", "Logbook", "LogStore", "TestSupport"]),
        .testTarget(
            name: "EmployeesTests", dependencies: ["employees", "TestSupport"],
            exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)

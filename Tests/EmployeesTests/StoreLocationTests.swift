import Testing

@testable import employees

@Suite struct StoreLocationTests {
    @Test func explicitPathWinsOverTheEnvironment() {
        let environment = ["LOGBOOK_EMPLOYEES_STORE": "/env/store", "HOME": "/home/u"]
        #expect(StoreLocation.resolve(explicitPath: "/cli", environment: environment) == "/cli")
        #expect(StoreLocation.resolve(explicitPath: nil, environment: environment) == "/env/store")
    }

    #if os(Linux)
        @Test func defaultFollowsXDGDataHome() {
            #expect(
                StoreLocation.resolve(explicitPath: nil, environment: ["HOME": "/home/u"])
                    == "/home/u/.local/share/logbook/Employees.logbook")
            #expect(
                StoreLocation.resolve(
                    explicitPath: nil, environment: ["HOME": "/home/u", "XDG_DATA_HOME": "/data"])
                    == "/data/logbook/Employees.logbook")
            // XDG says relative values are invalid and must be ignored.
            #expect(
                StoreLocation.resolve(
                    explicitPath: nil, environment: ["HOME": "/h", "XDG_DATA_HOME": "rel"])
                    == "/h/.local/share/logbook/Employees.logbook")
        }
    #endif
}

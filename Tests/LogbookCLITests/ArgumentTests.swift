import Foundation
import TestSupport
import Testing

@Suite struct ArgumentTests {
    @Test func helpListsEverySubcommand() throws {
        let result = try CLI.run(["--help"])
        #expect(result.status == 0)
        for name in ["dump", "verify", "stats", "compact", "export", "import"] {
            #expect(result.stdout.contains("\n  \(name) "), "\(name)")
        }
        let bare = try CLI.run([])
        #expect(bare.status == 2)
        #expect(bare.stderr.contains("usage: logbook"))
    }

    @Test func helpOfEachSubcommandShowsItsUsage() throws {
        for name in ["dump", "verify", "stats", "compact", "export", "import"] {
            let result = try CLI.run(["help", name])
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("usage: logbook \(name) PATH"), "\(name)")
            let viaOption = try CLI.run([name, "--help"])
            #expect(viaOption.stdout == result.stdout)
        }
        let verify = try CLI.run(["help", "verify"])
        #expect(verify.stdout.contains("torn tail"))
        #expect(verify.stdout.contains("--strict"))
    }

    @Test(arguments: [
        (
            ["frobnicate"],
            "logbook: no subcommand \"frobnicate\"; run `logbook --help` for the list"
        ),
        (["--frob"], "logbook: unknown option --frob; run `logbook --help`"),
        (["help", "frob"], "logbook: no subcommand \"frob\"; run `logbook --help` for the list"),
        (["dump"], "logbook: `logbook dump` needs PATH (usage: logbook dump PATH …)"),
        (
            ["import", "/x"],
            "logbook: `logbook import` needs FILE (usage: logbook import PATH FILE …)"
        ),
        (
            ["dump", "/x", "/y"],
            "logbook: unexpected argument \"/y\" for `logbook dump`; see `logbook help dump`"
        ),
        (
            ["dump", "/x", "--bogus"],
            "logbook: unknown option --bogus for `logbook dump`; see `logbook help dump`"
        ),
        (["dump", "/x", "--limit"], "logbook: --limit needs a value (N)"),
        (["dump", "/x", "--live=yes"], "logbook: --live takes no value"),
        (
            ["dump", "/nonexistent-store", "--limit", "x"],
            "logbook: --limit takes a whole number, not \"x\""
        ),
        (
            ["dump", "/nonexistent-store", "--format", "xml"],
            "logbook: --format takes one of text, json, jsonl, not \"xml\""
        ),
        (
            ["stats", "/nonexistent-store"],
            "logbook: no store at /nonexistent-store: no such directory"
        ),
    ])
    func usageErrorsGiveOneLineAndExitTwo(arguments: [String], message: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr == message + "\n")
        #expect(result.stdout == "")
    }
}

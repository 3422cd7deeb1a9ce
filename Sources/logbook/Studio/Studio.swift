import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `logbook studio PATH [--port N] [--listen ADDR] [--write] [--open]`: a local web UI of the
/// store, served by the tool itself until SIGINT or SIGTERM.
enum Studio: Subcommand {
    static let name = "studio"
    static let summary = "browse the store in a web browser: schema, objects, history, log"
    static let positionals = ["PATH"]
    static let options = [
        OptionSpec(
            name: "port", valueName: "N", help: "the port to listen on (default: any free one)"),
        OptionSpec(
            name: "listen", valueName: "ADDR",
            help: "listen on this IP address instead of loopback (a warning: others can connect)"),
        OptionSpec(
            name: "write", valueName: nil,
            help: "open the store for writing: edit attributes, delete objects, compact"),
        OptionSpec(name: "open", valueName: nil, help: "open the URL in the system's browser"),
    ]
    static let discussion = """
        Prints a URL with a random token, http://127.0.0.1:PORT/?token=…, and serves until \
        SIGINT or SIGTERM. Every view has its own URL: the overview (/), the schema diagram \
        (/schema), an entity's objects (/entity/NAME, paged, sorted, filtered with --where's \
        syntax, exported as CSV or JSON Lines), one object with its history \
        (/entity/NAME/ID), the history of saves (/history) with each save's changes and the \
        store as of that save (?asof=TOKEN), and the log's segments (/log). Open pages follow \
        the saves of other processes as they happen.
        The store is opened read-only, so another process may write it meanwhile; with \
        --write the studio takes the writer lock and can set attributes, delete objects (each \
        a save through the object layer, with its validation and delete rules) and compact. \
        Without --write there is no way to write.
        Only this machine can connect: the server listens on 127.0.0.1 and ::1 unless --listen \
        names another address, and every request needs the token (a cookie after the first \
        page; a write needs it in a header), and a Host header that names this machine. \
        Nothing is fetched from the network: the pages, style and script are in the binary.
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        var options = StudioServer.Options(path: arguments.positionals[0])
        if let port = try arguments.count("port") {
            guard port <= Int(UInt16.max) else {
                throw CommandError.usage("--port takes a port number up to 65535, not \(port)")
            }
            options.port = UInt16(port)
        }
        if let text = arguments.value("listen") {
            guard let address = ListenAddress(text) else {
                throw CommandError.usage(
                    "--listen takes an IP address (127.0.0.1, ::1, 0.0.0.0, …), not \"\(text)\"")
            }
            options.listen = address
            if !address.isLoopback {
                console.err.write(
                    "logbook: warning: listening on \(address.urlHost), not loopback: other "
                        + "machines can connect. The token is still required, but the traffic "
                        + "is not encrypted; prefer the default (loopback) or an SSH tunnel.\n")
            }
        }
        options.writable = arguments.has("write")
        StopSignal.install()
        signal(SIGPIPE, SIG_IGN)
        let server = try StudioServer(options)
        defer { server.stop() }
        let mode = options.writable ? "for writing (--write)" : "read-only"
        console.out.write(
            "logbook studio: serving \(options.path) \(mode) at\n\(server.url)\n"
                + "Stop with Ctrl-C.\n")
        console.out.flush()
        var opener: BrowserOpener?
        if arguments.has("open") {
            opener = BrowserOpener(url: server.url)
            if opener?.launched != true {
                console.err.write("logbook: no browser could be started; open the URL above\n")
            }
        }
        while !StopSignal.isRequested { usleep(100_000) }
        opener?.remove()
        return 0
    }
}

/// Starts the system's browser on a URL that holds the token without putting the token on a
/// command line (which other users of the machine can read): the browser opens a small file,
/// readable by its owner only, that redirects to the URL.
struct BrowserOpener {
    private let directory: String?
    /// Whether a browser program was started.
    let launched: Bool

    init(url: String) {
        let temporary = NSTemporaryDirectory()
        let parent = temporary.hasSuffix("/") ? String(temporary.dropLast()) : temporary
        var template = Array((parent + "/logbook-studio-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            directory = nil
            launched = false
            return
        }
        let directory = String(cString: made)
        self.directory = directory
        let file = directory + "/open.html"
        let page =
            "<!DOCTYPE html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url="
            + HTML.escape(url) + "\"><title>Logbook Studio</title><a href=\"" + HTML.escape(url)
            + "\">Open Logbook Studio</a>\n"
        let written = FileManager.default.createFile(
            atPath: file, contents: Data(page.utf8), attributes: [.posixPermissions: 0o600])
        #if canImport(Darwin)
            let program = "open"
        #else
            let program = "xdg-open"
        #endif
        launched = written && Self.spawn(program, "file://" + file)
    }

    /// Removes the redirecting file.
    func remove() {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Starts `program argument` from `PATH`, its output discarded; whether it started.
    private static func spawn(_ program: String, _ argument: String) -> Bool {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(program), strdup(argument), nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        guard posix_spawnp(&pid, program, &actions, nil, argv, environ) == 0 else { return false }
        // Reaped when it exits, so that it leaves no zombie behind.
        Thread.detachNewThread { [pid] in _ = waitpid(pid, nil, 0) }
        return true
    }
}

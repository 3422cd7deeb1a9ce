/// Runs an ``EmployeeListScreen`` on the real terminal until the user quits.
///
/// Redraws after every batch of keys and whenever the window size changes (checked every
/// quarter second). The terminal is restored however the loop ends.
enum InteractiveSession {
    /// - Throws: ``EmployeesError/store(_:)`` if the terminal cannot be put in raw mode.
    static func run(_ screen: EmployeeListScreen) throws(EmployeesError) {
        let terminal = RawTerminal()
        try terminal.activate()
        defer { terminal.restore() }
        var decoder = KeyDecoder()
        var lastSize = (width: 0, height: 0)
        var needsDraw = true
        while !screen.isFinished {
            let size = terminal.size()
            if needsDraw || size != lastSize {
                if size != lastSize { terminal.write("\u{1B}[2J") }
                let frame = screen.render(width: size.width, height: size.height)
                terminal.write(TerminalRenderer.draw(frame, width: size.width))
                lastSize = size
                needsDraw = false
            }
            guard let bytes = terminal.read(timeout: 250) else { break }
            for key in decoder.decode(bytes) where !screen.isFinished {
                screen.handle(key)
                needsDraw = true
            }
        }
    }
}

public import ArgumentParser
import BeaconCore

extension AsyncParsableCommand {
    /// ArgumentParser's `main`, with one difference: every help screen (`--help`, `-h`, `help
    /// SUBCOMMAND`) ends with the exit statuses of ``ExitStatus``, after the options — where
    /// docs/OPERATIONS.md says they are, and where a reader looking for them scrolls to.
    /// ArgumentParser has no footer of its own: a discussion comes before the usage and options.
    public static func mainEndingHelpWithExitStatuses(_ arguments: [String]? = nil) async {
        do {
            var command = try await asyncParseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard let help = helpScreen(for: error) else { self.exit(withError: error) }
            print(help + "\n\n" + wrapped(ExitStatus.help))
            self.exit()
        }
    }

    /// The help screen `error` asks for, or nil for any other error. ArgumentParser keeps the
    /// kind of a parse error to itself; a help request is the clean exit whose text is a help
    /// screen.
    static func helpScreen(for error: any Error) -> String? {
        guard exitCode(for: error).isSuccess else { return nil }
        let text = fullMessage(for: error)
        return text.hasPrefix("OVERVIEW:") || text.hasPrefix("USAGE:") ? text : nil
    }

    /// `text` broken into lines of at most `width` characters, at spaces, as the help around it is.
    static func wrapped(_ text: String, width: Int = 80) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}

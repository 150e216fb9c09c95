public import HuddleMDNSCore

/// A command typed to `huddle advertise --control`: `txt k=v …` replaces the TXT data, `port N` moves the
/// service, `quit` withdraws it.
public enum ServiceControl: Equatable, Sendable {
    case txt(MDNSTXTRecord)
    case port(UInt16)
    case quit

    /// The command on `line`; nil for a blank line. Throws what is wrong with a line that is not a command.
    public init?(_ line: String) throws(SetupError) {
        let words = line.split(separator: " ").map(String.init)
        guard let command = words.first else { return nil }
        switch command {
        case "txt":
            do {
                self = .txt(try MDNSTXTRecord(arguments: Array(words.dropFirst())))
            } catch {
                throw SetupError("txt", "\((error as? MDNSError)?.message ?? "\(error)")")
            }
        case "port":
            guard words.count == 2, let port = UInt16(words[1]), port > 0 else {
                throw SetupError("port", "takes N (1-65535)")
            }
            self = .port(port)
        case "quit":
            self = .quit
        default:
            throw SetupError(command, "is no command (txt k=v …, port N, quit)")
        }
    }
}

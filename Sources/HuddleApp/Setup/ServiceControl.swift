public import HuddleDiscovery
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

extension ServiceControl {
    /// Carries out the commands of `lines` on the service `id` of `stack` until `quit` or their end (whether
    /// `quit` came); a line that is no command is said through `error` and skipped.
    public static func follow(
        _ lines: some AsyncSequence<String, Never>,
        stack: MDNSStack,
        id: MDNSServiceID,
        error say: (String) -> Void
    ) async -> Bool {
        for await line in lines {
            do {
                switch try ServiceControl(line) {
                case .txt(let txt): await stack.update(id, txt: txt)
                case .port(let port): await stack.update(id, port: port)
                case .quit: return true
                case nil: continue
                }
            } catch {
                say("\(error)")
            }
        }
        return false
    }
}

extension MDNSServiceRegistration {
    /// The service `huddle advertise NAME TYPE PORT [TXT…] [--subtype S]…` registers: TYPE without a subtype
    /// (those come with `subtypes`, an underscore added where missing), TXT as `key=value` or `key` alone.
    /// - Throws: what is wrong, in words.
    public static func given(
        name: String,
        type: String,
        port: UInt16,
        txt: [String],
        subtypes: [String]
    ) throws(SetupError) -> MDNSServiceRegistration {
        do {
            let parsed = try MDNSServiceType(parsing: type, strict: true)
            guard parsed.subtype == nil else {
                throw SetupError("subtype", "give subtypes with --subtype, not in TYPE")
            }
            return try MDNSServiceRegistration(
                instanceName: name,
                type: parsed,
                port: port,
                txt: try MDNSTXTRecord(arguments: txt),
                subtypes: subtypes.map { $0.hasPrefix("_") ? $0 : "_" + $0 }
            )
        } catch let error as SetupError {
            throw error
        } catch {
            throw SetupError("service", (error as? MDNSError)?.message ?? "\(error)")
        }
    }
}

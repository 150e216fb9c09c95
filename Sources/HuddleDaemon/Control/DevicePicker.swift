/// The peer picker of `huddle peers` while a daemon runs (docs/daemon.md, "Peers"), as a value without I/O: what to
/// print when the daemon's devices or questions change, and what a typed line asks for.
public struct DevicePicker: Sendable {
    /// What a typed line asks the daemon for.
    public enum Action: Sendable, Equatable {
        /// Connect to the Huddle device of this name (as `send --to` takes it).
        case connect(String)
        /// Answer question `id` of the daemon's (a connection request's code compared).
        case answer(Int, Bool)
        case quit
    }

    /// A question waiting in the daemon: its number and its words.
    public struct Question: Sendable, Equatable, Codable {
        public var id: Int
        public var lines: [String]

        public init(id: Int, lines: [String]) { (self.id, self.lines) = (id, lines) }
    }

    /// The devices as last shown, in their numbered order.
    public private(set) var devices: [DaemonDevice]?
    /// The questions waiting, as last seen.
    public private(set) var questions: [Question] = []

    public static let help = "Type a device's number to connect, y N or n N to answer question N, /quit to leave."

    public init() {}

    /// The daemon's devices now: the numbered list to print when it differs from the one shown, else nothing.
    public mutating func show(_ devices: [DaemonDevice]) -> [String] {
        guard devices != self.devices else { return [] }
        let first = self.devices == nil
        self.devices = devices
        return [first ? "Devices:" : "Devices now:"] + DaemonDevice.lines(devices)
    }

    /// The daemon's questions now: the words of each not shown before, numbered, with how to answer.
    public mutating func show(questions: [Question]) -> [String] {
        let seen = Set(self.questions.map(\.id))
        self.questions = questions
        return questions.filter { !seen.contains($0.id) }.flatMap { question in
            question.lines.enumerated().map { ($0 == 0 ? "\(question.id): " : "   ") + $1 }
                + ["   (y \(question.id) or n \(question.id))"]
        }
    }

    /// What `line` asks for, and what to say to the person (help, or why not).
    public func read(_ line: String) -> (action: Action?, say: [String]) {
        let words = line.split(separator: " ").map { $0.lowercased() }
        guard let first = words.first else { return (nil, []) }
        if first == "/quit" { return (.quit, []) }
        if let number = Int(first), words.count == 1 {
            guard let devices, number >= 1, number <= devices.count else {
                return (nil, ["No device \(number) on the list. " + Self.help])
            }
            let device = devices[number - 1]
            guard device.protocol == "huddle" else {
                let how = "send to it with huddle send --to \(device.sendName)"
                return (nil, ["\(device.name) is a \(device.protocol) device: \(how)"])
            }
            return (.connect(device.sendName), ["Connecting to \(device.name)…"])
        }
        let yes = ["y", "yes"].contains(first)
        if yes || ["n", "no"].contains(first) {
            let id = words.count == 2 ? Int(words[1]) : (questions.count == 1 ? questions[0].id : nil)
            guard let id, words.count <= 2 else {
                return (nil, [questions.isEmpty ? "No question waits." : "Which question? y N or n N."])
            }
            return (.answer(id, yes), [])
        }
        return (nil, [Self.help])
    }
}

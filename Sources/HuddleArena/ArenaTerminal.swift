import Foundation
import HuddleArenaCore

#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif

/// The terminal while a human plays: raw input (each key at once, no echo), the alternate screen without a cursor,
/// and a frame drawn in place with plain ANSI escapes. Restored on ``restore()``.
final class ArenaTerminal: @unchecked Sendable {
    private var saved = termios()
    private var raw = false

    /// Whether standard input and output are a terminal.
    static var isInteractive: Bool { isatty(0) == 1 && isatty(1) == 1 }

    func enter() {
        guard tcgetattr(0, &saved) == 0 else { return }
        var settings = saved
        cfmakeraw(&settings)
        settings.c_oflag |= tcflag_t(OPOST)  // "\n" still starts a new line
        guard tcsetattr(0, TCSANOW, &settings) == 0 else { return }
        raw = true
        write("\u{1B}[?1049h\u{1B}[?25l")
    }

    func restore() {
        guard raw else { return }
        write("\u{1B}[?25h\u{1B}[?1049l")
        _ = tcsetattr(0, TCSANOW, &saved)
        raw = false
    }

    /// Draws `lines` from the top left, clearing what is left of an older, larger frame.
    func draw(_ lines: [String]) {
        write("\u{1B}[H" + lines.joined(separator: "\u{1B}[K\n") + "\u{1B}[K\n\u{1B}[J")
    }

    func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return systemWrite(1, base + offset, buffer.count - offset)
            }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// What the keys say, as they come: arrows, WASD or HJKL steer, space stops, q or Ctrl-C ends the game.
    enum Key: Sendable {
        case steer(ArenaDirection)
        case quit
    }

    /// Reads keys on a thread of its own until standard input ends.
    static func keys() -> AsyncStream<Key> {
        let (stream, sink) = AsyncStream.makeStream(of: Key.self)
        let thread = Thread {
            var decoder = KeyDecoder()
            var byte: UInt8 = 0
            while read(0, &byte, 1) == 1 {
                if let key = decoder.take(byte) { sink.yield(key) }
            }
            sink.finish()
        }
        thread.start()
        return stream
    }

    /// Bytes to keys: `ESC [ A` … `ESC [ D` are the arrows.
    struct KeyDecoder {
        private var escape: [UInt8] = []

        mutating func take(_ byte: UInt8) -> Key? {
            if !escape.isEmpty || byte == 0x1B {
                escape.append(byte)
                guard escape.count == 3 else { return nil }
                defer { escape = [] }
                switch escape[2] {
                case UInt8(ascii: "A"): return .steer(.up)
                case UInt8(ascii: "B"): return .steer(.down)
                case UInt8(ascii: "C"): return .steer(.right)
                case UInt8(ascii: "D"): return .steer(.left)
                default: return nil
                }
            }
            switch Character(Unicode.Scalar(byte)).lowercased() {
            case "w", "k": return .steer(.up)
            case "s", "j": return .steer(.down)
            case "d", "l": return .steer(.right)
            case "a", "h": return .steer(.left)
            case " ": return .steer(.none)
            case "q", "\u{03}": return .quit
            default: return nil
            }
        }
    }
}

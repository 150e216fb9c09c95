#if os(Linux) || os(FreeBSD) || os(OpenBSD)
import Foundation

/// What an owner answers for each target: the item's representations spelled as X11 targets.
///
/// Pure: built from a ``PasteboardItem`` and tested without a server.
struct X11SelectionContents: Sendable {
    struct Answer: Equatable, Sendable {
        /// The property type to write (`UTF8_STRING`, `STRING`, or the target itself).
        var type: String
        var data: Data
    }

    /// How many target names that the catalogue does not list an item is offered under, at most: 16.
    ///
    /// Each target offered becomes an X atom as soon as a program asks for TARGETS, and the X server never frees
    /// an atom: its table is shared by every client of the display until the server exits. An item from a peer
    /// can carry tens of thousands of type names, so offering each one would let a paired peer fill that table
    /// with a few messages. The catalogue's names (a fixed set) and the password managers' markers are always
    /// offered; other names, including unusual spellings of known types, are offered in the item's order until
    /// this many have been, and the rest are dropped. Real programs offer a handful of private types at most.
    static let maximumUnknownTargets = 16

    /// Names offered whatever the bound: the catalogue's, and the markers that keep a secret item secret.
    private static let alwaysOffered = PasteboardTypeCatalog.spellings.union([
        PasteboardType.passwordManagerHint.rawValue, PasteboardType.concealed.rawValue,
    ])

    /// Targets in the order offered (TARGETS and TIMESTAMP first, then the item's, best first).
    private(set) var targets: [String] = ["TARGETS", "TIMESTAMP"]
    private var answers: [String: Answer] = [:]

    init(item: PasteboardItem) {
        var unknown = 0
        for representation in item.representations {
            var names = representation.type.x11Targets
            if !names.contains(representation.type.rawValue) { names.append(representation.type.rawValue) }
            for name in names where self.answers[name] == nil {
                if !Self.alwaysOffered.contains(name) {
                    guard unknown < Self.maximumUnknownTargets else { continue }
                    unknown += 1
                }
                self.answers[name] = Self.answer(target: name, data: representation.data)
                self.targets.append(name)
            }
        }
    }

    /// The answer for a target, or nil to refuse it.
    func answer(for target: String) -> Answer? {
        self.answers[target]
    }

    /// `STRING` is ISO Latin-1 (ICCCM §2.7.1): characters outside it become `?`. `TEXT` lets the owner choose the
    /// encoding (ICCCM §2.6.2), and UTF-8 is what requestors expect today.
    private static func answer(target: String, data: Data) -> Answer {
        switch target {
        case "STRING":
            let text = String(decoding: data, as: UTF8.self)
            let latin1 = text.unicodeScalars.map { $0.value < 256 ? UInt8($0.value) : UInt8(ascii: "?") }
            return Answer(type: "STRING", data: Data(latin1))
        case "TEXT":
            return Answer(type: "UTF8_STRING", data: data)
        default:
            return Answer(type: target, data: data)
        }
    }
}
#endif

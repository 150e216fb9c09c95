import Foundation
import HuddleForeign
import HuddleTestSupport
import Testing

@Suite struct ForeignPinsTests {
    func peer(_ name: String, _ fingerprint: String?, _ proto: ForeignProtocol = .localSend) -> ForeignPeer {
        ForeignPeer(
            id: .init(protocol: proto, value: fingerprint ?? name),
            name: name,
            address: "10.0.0.2:53317",
            fingerprint: fingerprint
        )
    }

    @Test func aPinnedFingerprintIsPinnedInEitherCaseAndAnotherUnderItsNameIsAChange() {
        var book = ForeignPinBook()
        #expect(book.trust(of: peer("Pixel", "aa11")) == .unpinned)
        let pinned = book.pin(peer("Pixel", "aa11"), at: Date(timeIntervalSince1970: 1))
        #expect(pinned)
        guard case .pinned(let pin) = book.trust(of: peer("Pixel", "AA11")) else {
            Issue.record("not pinned")
            return
        }
        #expect(pin.fingerprint == "AA11")
        #expect(book.trust(of: peer("Pixel", "BB22")) == .changed(pinned: pin))
        // The same name in another protocol is another device; a renamed device keeps its pin.
        #expect(book.trust(of: peer("Pixel", "BB22", .kdeConnect)) == .unpinned)
        #expect(book.trust(of: peer("Pixel 8", "aa11")) == .pinned(pin))
    }

    @Test func aPinnedNameShownWithoutACertificateIsAChangeNeverUnpinned() {
        var book = ForeignPinBook()
        book.pin(peer("Ada's Phone", "F00D"), at: Date(timeIntervalSince1970: 1))
        let pin = ForeignPin(
            protocol: .localSend,
            name: "Ada's Phone",
            fingerprint: "F00D",
            pinnedAt: Date(timeIntervalSince1970: 1)
        )
        #expect(book.trust(of: peer("Ada's Phone", nil)) == .changed(pinned: pin))
        // Another name without a certificate is merely unpinned; the same name in another protocol is another device.
        #expect(book.trust(of: peer("Bob's Phone", nil)) == .unpinned)
        #expect(book.trust(of: peer("Ada's Phone", nil, .kdeConnect)) == .unpinned)
    }

    @Test func withoutAFingerprintNothingIsPinnedAndRepinningReplacesTheOldPin() {
        var book = ForeignPinBook()
        let pinnedNothing = book.pin(peer("Laptop", nil), at: Date())
        #expect(!pinnedNothing)
        #expect(book.pins.isEmpty)
        #expect(book.trust(of: peer("Laptop", nil)) == .unpinned)
        book.pin(peer("Pixel", "AA11"), at: Date(timeIntervalSince1970: 1))
        book.pin(peer("Pixel", "BB22"), at: Date(timeIntervalSince1970: 2))
        #expect(book.pins.map(\.fingerprint) == ["BB22"])
        #expect(book.trust(of: peer("Pixel", "AA11")) != .unpinned)
    }

    @Test func theStoreKeepsPinsOnDiskPrivatelyAndRefusesAFileItCannotRead() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let store = ForeignPinStore(directory: scratch.url)
        #expect(try store.load() == ForeignPinBook())
        #expect(try store.pin(peer("Pixel", "aa11"), at: Date(timeIntervalSince1970: 1_800_000_000)))
        let again = try ForeignPinStore(directory: scratch.url).load()
        #expect(again.pins.map(\.name) == ["Pixel"])
        #expect(again.pins.map(\.fingerprint) == ["AA11"])
        #expect(again.pins.first?.pinnedAt == Date(timeIntervalSince1970: 1_800_000_000))
        let mode = try FileManager.default.attributesOfItem(atPath: store.file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try Data("not json".utf8).write(to: store.file)
        #expect(throws: ForeignPinError.unreadable(store.file.path)) { try store.load() }
    }

    /// A pin file that is there but cannot be read is not "no pins": every pinned device would look new.
    @Test func aPinFileThatExistsButCannotBeReadIsRefusedNotTakenForNoPins() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let store = ForeignPinStore(directory: scratch.url)
        // A directory where the file should be: unreadable as a file, for root too.
        try FileManager.default.createDirectory(at: store.file, withIntermediateDirectories: false)
        #expect(throws: ForeignPinError.unreadable(store.file.path)) { try store.load() }
        #expect(throws: ForeignPinError.unreadable(store.file.path)) { try store.pin(peer("Pixel", "aa11")) }
        // A data directory that is a file: whether the pin file is there cannot be known.
        let hidden = ForeignPinStore(directory: store.file.appendingPathComponent("not-a-directory"))
        try Data("{}".utf8).write(to: store.file.appendingPathComponent("not-a-directory"))
        #expect(throws: ForeignPinError.unreadable(hidden.file.path)) { try hidden.load() }
    }
}

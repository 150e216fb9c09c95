import Foundation
import HuddleForeign
import HuddleLocalSend
import HuddleTestSupport
import NIOConcurrencyHelpers
import ServiceLifecycle
import Testing

@testable import HuddleApp

/// Sending to a LocalSend or KDE Connect device: the PIN asked for when the device wants one, a changed
/// certificate stopping the send unless the person says so, directories refused, a first use pinned. The device is
/// a scripted ``ForeignPeerService`` (this is the rule around the protocol; the protocols' own suites and the
/// interop suite send for real).
@Suite("Foreign delivery: PINs, changed certificates, directories")
struct ForeignDeliveryTests {
    /// What the caller was asked and told.
    final class Transcript: Sendable {
        let lines = NIOLockedValueBox<[String]>([])
        let outcomes = NIOLockedValueBox<[DeliveryOutcome]>([])

        /// Sends to the Pixel, keeping every outcome; returns how many failed.
        func run(_ delivery: ForeignDelivery, via device: ScriptedForeignDevice) async -> Int {
            await delivery.send(to: ForeignDeliveryTests.pixel, via: device) { outcome in
                self.outcomes.withLockedValue { $0.append(outcome) }
            }
        }
    }

    static let pixel = ForeignPeer(
        id: .init(protocol: .localSend, value: "AB12"),
        name: "Pixel",
        address: "10.0.0.7:53317",
        fingerprint: "AB12CD34EF56AB12CD34EF56AB12CD34"
    )

    static func files(_ scratch: ScratchDirectory, _ names: [String]) throws -> [String] {
        try names.map { name in
            let url = scratch.url.appendingPathComponent(name)
            try Data(name.utf8).write(to: url)
            return url.path
        }
    }

    static func delivery(
        _ scratch: ScratchDirectory,
        device: ScriptedForeignDevice,
        paths: [String],
        answers: [String?],
        goOnWhenChanged: Bool = false,
        transcript: Transcript
    ) -> ForeignDelivery {
        let queue = NIOLockedValueBox(answers)
        return ForeignDelivery(
            foreign: ForeignPeers([device], pins: ForeignPinStore(directory: scratch.url)),
            paths: paths,
            askLine: { question in
                transcript.lines.withLockedValue { $0.append(question) }
                return queue.withLockedValue { $0.isEmpty ? nil : $0.removeFirst() }
            },
            confirmChangedCertificate: { peer, pinned in
                transcript.lines.withLockedValue { $0.append("changed \(peer.name) \(pinned.prefix(4))") }
                return goOnWhenChanged
            }
        )
    }

    @Test("a device that wants a PIN: asked, a wrong one asked again, then sent and pinned on first use")
    func pinAskedUntilRight() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let device = ScriptedForeignDevice(pin: "4242")
        let transcript = Transcript()
        let paths = try Self.files(scratch, ["a.txt", "b.txt"])
        let delivery = Self.delivery(
            scratch,
            device: device,
            paths: paths,
            answers: ["1111", " 4242 "],
            transcript: transcript
        )
        let failed = await transcript.run(delivery, via: device)
        #expect(failed == 0)
        #expect(transcript.lines.withLockedValue { $0 } == ["Pixel asks for a PIN:", "Pixel refused the PIN; PIN:"])
        #expect(device.taken.withLockedValue { $0.map(\.files) } == [["a.txt", "b.txt"]])
        #expect(device.taken.withLockedValue { $0.map(\.pin) } == ["4242"])
        let outcomes = transcript.outcomes.withLockedValue { $0 }
        #expect(
            outcomes == [
                .sent(SentRecord(file: "a.txt", peer: "Pixel", protocol: .localSend), device: Self.pixel),
                .sent(SentRecord(file: "b.txt", peer: "Pixel", protocol: .localSend), device: Self.pixel),
                .pinned(Self.pixel),
            ]
        )
        let trust = try ForeignPinStore(directory: scratch.url).load().trust(of: Self.pixel)
        #expect(trust.isPinned)
    }

    @Test("no answer to the PIN question: the device's refusal stands and every file fails")
    func noPinNoSend() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let device = ScriptedForeignDevice(pin: "4242")
        let transcript = Transcript()
        let paths = try Self.files(scratch, ["a.txt"])
        var delivery = Self.delivery(scratch, device: device, paths: paths, answers: [], transcript: transcript)
        delivery.remedy = { ($0 as? LocalSendError)?.code == .pinRequired ? "give it with --pin" : nil }
        let failed = await transcript.run(delivery, via: device)
        #expect(failed == 1)
        #expect(device.taken.withLockedValue { $0.count } == 0)
        #expect(
            transcript.outcomes.withLockedValue { $0 } == [
                .offerFailed(
                    files: ["a.txt"],
                    device: Self.pixel,
                    error: "the device asks for a PIN: give it with --pin"
                )
            ]
        )
        #expect(try ForeignPinStore(directory: scratch.url).load().pins.isEmpty, "nothing pinned after a failure")
    }

    @Test("a changed certificate: the person is asked; no means nothing is sent")
    func changedCertificateStops() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let pins = ForeignPinStore(directory: scratch.url)
        var before = Self.pixel
        before.fingerprint = "0000111122223333444455556666777788"
        try pins.pin(before)
        let device = ScriptedForeignDevice(pin: nil)
        let transcript = Transcript()
        let paths = try Self.files(scratch, ["a.txt"])
        let delivery = Self.delivery(scratch, device: device, paths: paths, answers: [], transcript: transcript)
        let failed = await transcript.run(delivery, via: device)
        #expect(failed == 1)
        #expect(transcript.lines.withLockedValue { $0 } == ["changed Pixel 0000"])
        #expect(device.taken.withLockedValue { $0.count } == 0)
        #expect(
            transcript.outcomes.withLockedValue { $0 } == [
                .failed(FailedRecord(peer: "Pixel", error: "not sent (its certificate changed)"))
            ]
        )
    }

    @Test("directories are refused one by one, the files beside them still go")
    func directoriesRefused() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let folder = scratch.url.appendingPathComponent("album")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let device = ScriptedForeignDevice(pin: nil)
        let transcript = Transcript()
        let paths = [folder.path] + (try Self.files(scratch, ["c.txt"]))
        let delivery = Self.delivery(scratch, device: device, paths: paths, answers: [], transcript: transcript)
        let failed = await transcript.run(delivery, via: device)
        #expect(failed == 1)
        #expect(device.taken.withLockedValue { $0.map(\.files) } == [["c.txt"]])
        let outcomes = transcript.outcomes.withLockedValue { $0 }
        #expect(
            outcomes.first
                == .failed(
                    FailedRecord(
                        file: folder.path,
                        error: "directories go to Huddle peers only; Pixel is a LocalSend device"
                    )
                )
        )
        #expect(outcomes.count == 3, "the refusal, the file sent, the pin on first use")
    }
}

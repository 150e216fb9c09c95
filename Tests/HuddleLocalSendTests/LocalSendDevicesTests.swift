import HuddleTestSupport
import Testing

@testable import HuddleLocalSendWire

@Suite struct LocalSendDevicesTests {
    func info(
        _ alias: String,
        _ fingerprint: String,
        port: Int? = 53317,
        scheme: String = "https"
    ) -> LocalSendDeviceInfo {
        .init(
            alias: alias,
            deviceModel: nil,
            deviceType: "mobile",
            fingerprint: fingerprint,
            port: port,
            protocol: scheme,
            download: false,
            announce: true
        )
    }

    @Test func aPlainHTTPClaimNeverReplacesAnHTTPSDeviceAndAMoveWaitsForProof() {
        var devices = LocalSendDevices(ownFingerprint: "abcd")
        _ = devices.heard(info("Phone", "F0F0"), from: "10.0.0.2", at: .testTime(0))
        let downgrade = devices.heard(info("Phone", "F0F0", scheme: "http"), from: "10.0.0.66", at: .testTime(1))
        guard case .kept(let kept) = downgrade else {
            Issue.record("not kept: \(downgrade)")
            return
        }
        #expect(kept.host == "10.0.0.2")
        #expect(devices.device("F0F0")?.isHTTPS == true)
        #expect(devices.device("F0F0")?.host == "10.0.0.2")
        // Not from the same address either.
        guard case .kept = devices.heard(info("Phone", "F0F0", scheme: "http"), from: "10.0.0.2", at: .testTime(2))
        else {
            Issue.record("downgraded in place")
            return
        }
        // An HTTPS claim from elsewhere leaves the entry until proven.
        guard
            case .moveClaimed(let old, let claimed) = devices.heard(
                info("Phone", "F0F0"),
                from: "10.0.0.66",
                at: .testTime(3)
            )
        else {
            Issue.record("moved unproven")
            return
        }
        #expect(old.host == "10.0.0.2")
        #expect(claimed.host == "10.0.0.66")
        #expect(devices.device("F0F0")?.host == "10.0.0.2")
        guard
            case .changed(let moved) = devices.heard(
                info("Phone", "F0F0"),
                from: "10.0.0.7",
                at: .testTime(4),
                proven: true
            )
        else {
            Issue.record("a proven move was refused")
            return
        }
        #expect(moved.host == "10.0.0.7")
        #expect(devices.device("F0F0")?.host == "10.0.0.7")
        // A plain-HTTP device may become HTTPS.
        _ = devices.heard(info("Laptop", "E1E1", scheme: "http"), from: "10.0.0.3", at: .testTime(5))
        guard case .changed(let upgraded) = devices.heard(info("Laptop", "E1E1"), from: "10.0.0.3", at: .testTime(6))
        else {
            Issue.record("not upgraded")
            return
        }
        #expect(upgraded.isHTTPS)
    }

    @Test func ownMessagesAreIgnoredInEitherCaseAndOthersAreNewThenTheSameThenChanged() {
        var devices = LocalSendDevices(ownFingerprint: "abcd")
        #expect(devices.heard(info("me", "ABCD"), from: "10.0.0.1", at: .testTime(0)) == .ignored)
        guard case .new(let first) = devices.heard(info("Pixel", "ff01"), from: "10.0.0.2", at: .testTime(1)) else {
            Issue.record("not new")
            return
        }
        #expect(first.key == "FF01")
        #expect(first.info.announce == nil)
        #expect(first.port == 53317)
        guard case .same = devices.heard(info("Pixel", "FF01"), from: "10.0.0.2", at: .testTime(2)) else {
            Issue.record("not the same")
            return
        }
        guard
            case .changed(let moved) = devices.heard(
                info("Pixel", "ff01"),
                from: "10.0.0.9",
                at: .testTime(3),
                proven: true
            )
        else {
            Issue.record("not changed")
            return
        }
        #expect(moved.host == "10.0.0.9")
        #expect(devices.devices.count == 1)
    }

    @Test func beyondTheLimitTheDeviceHeardFromLeastRecentlyMakesRoom() {
        var limits = LocalSendLimits()
        limits.maximumDevices = 3
        var devices = LocalSendDevices(ownFingerprint: "00", limits: limits)
        for index in 1...3 {
            _ = devices.heard(info("d\(index)", "F\(index)"), from: "10.0.0.\(index)", at: .testTime(Double(index)))
        }
        _ = devices.heard(info("d1", "F1"), from: "10.0.0.1", at: .testTime(10))  // d2 is now the stalest
        _ = devices.heard(info("d4", "F4"), from: "10.0.0.4", at: .testTime(11))
        #expect(Set(devices.devices.keys) == ["F1", "F3", "F4"])
    }

    @Test func announcementsAreAnsweredAtMostSixTimesAMinutePerDevice() {
        var devices = LocalSendDevices(ownFingerprint: "00")
        let answered = (0..<20).filter { devices.mayAnswer("ab", at: .testTime(Double($0))) }
        #expect(answered == [0, 1, 2, 3, 4, 5])
        // The answer at 0 is more than a minute old at 60.5, the one at 1 only at 61.5; another device has its own.
        let later = [60.5, 60.6, 61.5, 61.5].map { devices.mayAnswer("AB", at: .testTime($0)) }
        #expect(later == [true, false, true, false])
        let other = devices.mayAnswer("cd", at: .testTime(61.5))
        #expect(other)
    }

    @Test func aFloodUnderEverNewFingerprintsIsAnsweredTenTimesASecondInAll() {
        var devices = LocalSendDevices(ownFingerprint: "00")
        let answered = (0..<100).filter { devices.mayAnswer("F\($0)", at: .testTime(Double($0) * 0.01)) }
        #expect(answered.count == 10)
        #expect(answered == Array(0..<10))
        let nextSecond = devices.mayAnswer("G1", at: .testTime(1.0))
        #expect(nextSecond)
    }

    /// Found by FuzzLocalSendMessages (FuzzTesting/FailCases/FuzzLocalSendMessages/evicted-device-answered-again.bin):
    /// forgetting a device also forgot the answers it had got, so a device pushed out by another and heard again got
    /// a fresh minute's worth of answers.
    @Test func aDeviceForgottenAndHeardAgainWithinTheMinuteGetsNoMoreAnswers() {
        var limits = LocalSendLimits()
        limits.maximumDevices = 1
        limits.registerAnswersPerMinute = 3
        var devices = LocalSendDevices(ownFingerprint: "00", limits: limits)
        // As the service does: record the announcement, then ask whether to answer it.
        func announce(_ fingerprint: String, at now: ContinuousClock.Instant) -> Bool {
            guard devices.heard(info("d", fingerprint), from: "10.0.0.2", at: now) != .ignored else { return false }
            return devices.mayAnswer(fingerprint, at: now)
        }
        let first = [0, 5, 10].map { announce("CB01", at: .testTime(Double($0))) }
        #expect(first == [true, true, true])
        _ = devices.heard(info("other", "CB00", port: nil), from: "10.0.0.3", at: .testTime(15))  // pushes CB01 out
        #expect(devices.device("CB01") == nil)
        let again = announce("CB01", at: .testTime(20))
        #expect(!again)
        #expect(devices.device("CB01") != nil, "heard, just not answered")
        let aMinuteLater = announce("CB01", at: .testTime(60.5))
        #expect(aMinuteLater, "the answer at 0 is more than a minute old")
    }

    @Test func answersGoToAtMostAsManyDevicesAMinuteAsTheTableHolds() {
        var limits = LocalSendLimits()
        limits.maximumDevices = 2
        var devices = LocalSendDevices(ownFingerprint: "00", limits: limits)
        let answers = [("A1", 0.0), ("A2", 10), ("A3", 20), ("A1", 30), ("A3", 70), ("A4", 75)].map { device, now in
            devices.mayAnswer(device, at: .testTime(now))
        }
        // A3 not at 20 (two devices answered within the minute) but at 70, once A2's answer is a minute old; A1, already
        // answered, still is.
        #expect(answers == [true, true, false, true, true, false])
    }
}

import Testing

@testable import HuddleLocalSendWire

@Suite struct LocalSendDevicesTests {
    func info(_ alias: String, _ fingerprint: String, port: Int? = 53317) -> LocalSendDeviceInfo {
        .init(
            alias: alias,
            deviceModel: nil,
            deviceType: "mobile",
            fingerprint: fingerprint,
            port: port,
            protocol: "https",
            download: false,
            announce: true
        )
    }

    @Test func ownMessagesAreIgnoredInEitherCaseAndOthersAreNewThenTheSameThenChanged() {
        var devices = LocalSendDevices(ownFingerprint: "abcd")
        #expect(devices.heard(info("me", "ABCD"), from: "10.0.0.1", at: 0) == .ignored)
        guard case .new(let first) = devices.heard(info("Pixel", "ff01"), from: "10.0.0.2", at: 1) else {
            Issue.record("not new")
            return
        }
        #expect(first.key == "FF01")
        #expect(first.info.announce == nil)
        #expect(first.port == 53317)
        guard case .same = devices.heard(info("Pixel", "FF01"), from: "10.0.0.2", at: 2) else {
            Issue.record("not the same")
            return
        }
        guard case .changed(let moved) = devices.heard(info("Pixel", "ff01"), from: "10.0.0.9", at: 3) else {
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
            _ = devices.heard(info("d\(index)", "F\(index)"), from: "10.0.0.\(index)", at: Double(index))
        }
        _ = devices.heard(info("d1", "F1"), from: "10.0.0.1", at: 10)  // d2 is now the stalest
        _ = devices.heard(info("d4", "F4"), from: "10.0.0.4", at: 11)
        #expect(Set(devices.devices.keys) == ["F1", "F3", "F4"])
    }

    @Test func announcementsAreAnsweredAtMostSixTimesAMinutePerDevice() {
        var devices = LocalSendDevices(ownFingerprint: "00")
        let answered = (0..<20).filter { devices.mayAnswer("ab", at: Double($0)) }
        #expect(answered == [0, 1, 2, 3, 4, 5])
        // The answer at 0 is more than a minute old at 60.5, the one at 1 only at 61.5; another device has its own.
        let later = [60.5, 60.6, 61.5, 61.5].map { devices.mayAnswer("AB", at: $0) }
        #expect(later == [true, false, true, false])
        let other = devices.mayAnswer("cd", at: 61.5)
        #expect(other)
    }

    @Test func aFloodUnderEverNewFingerprintsIsAnsweredTenTimesASecondInAll() {
        var devices = LocalSendDevices(ownFingerprint: "00")
        let answered = (0..<100).filter { devices.mayAnswer("F\($0)", at: Double($0) * 0.01) }
        #expect(answered.count == 10)
        #expect(answered == Array(0..<10))
        let nextSecond = devices.mayAnswer("G1", at: 1.0)
        #expect(nextSecond)
    }
}

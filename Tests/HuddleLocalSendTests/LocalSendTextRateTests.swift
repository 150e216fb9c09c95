import HuddleLocalSendWire
import HuddleTestSupport
import Testing

@Suite struct LocalSendTextRateTests {
    @Test func aHundredTextsInASecondFromOneAddressGiveAtMostTheLimit() {
        var rate = LocalSendTextRate()
        let taken = (0..<100).filter { rate.mayTake(from: "10.0.0.7", at: .testTime(5 + Double($0) / 100)) }
        #expect(taken.count == LocalSendLimits().textsPerMinute)
        // Another address has its own allowance; the first gets more only once the minute has passed.
        let other = rate.mayTake(from: "10.0.0.8", at: .testTime(6))
        let beforeTheMinute = rate.mayTake(from: "10.0.0.7", at: .testTime(64.9))
        let afterTheMinute = rate.mayTake(from: "10.0.0.7", at: .testTime(65.1))
        #expect(other)
        #expect(!beforeTheMinute)
        #expect(afterTheMinute)
    }

    @Test func aFloodFromManyAddressesIsBoundedToo() {
        var rate = LocalSendTextRate(maximumAddresses: 4)
        let hosts = (0..<10).map { "10.0.1.\($0)" }
        let taken = hosts.filter { rate.mayTake(from: $0, at: .testTime(1)) }
        #expect(taken == Array(hosts.prefix(4)))
        // Once the minute passed, the old addresses are forgotten and new ones are taken.
        let later = rate.mayTake(from: "10.0.1.9", at: .testTime(62))
        #expect(later)
    }
}

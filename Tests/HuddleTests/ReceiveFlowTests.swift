import NIOCore
import NIOEmbedded
import Testing

@testable import Huddle

@Suite("The receive budget: bytes count out when their charge goes; datagrams are dropped past the budget")
struct ReceiveFlowTests {
    @Test func datagramsCountInAndAreDroppedPastTheBudget() {
        let flow = ReceiveFlow(budget: 1000)
        var first = flow.admitDatagram(600)
        #expect(first?.count == 600)
        #expect(flow.undelivered == 600)
        #expect(flow.admitDatagram(401) == nil)
        #expect(flow.undelivered == 600)
        #expect(flow.datagramsOverBudget == 1)
        var second = flow.admitDatagram(400)
        #expect(flow.undelivered == 1000)
        #expect(flow.admitDatagram(1) == nil)
        #expect(flow.datagramsOverBudget == 2)
        first = nil
        #expect(flow.undelivered == 400)
        second = nil
        #expect(flow.undelivered == 0)
        withExtendedLifetime((first, second)) {}
    }

    @Test func takingEveryAdmittedDatagramLeavesNothingOwed() {
        let flow = ReceiveFlow(budget: 32 * 1024)
        for size in [1, 200, 1200, 0, 999] {
            let charge = flow.admitDatagram(size)
            #expect(charge?.count == size)
            #expect(flow.undelivered == size)
        }
        #expect(flow.undelivered == 0)
        #expect(flow.datagramsOverBudget == 0)
    }

    @Test func aPausedConnectionReadsAgainWhenTheChargesOfWhatPausedItAreLetGo() throws {
        let flow = ReceiveFlow(budget: 1000, transferBudget: 1000)
        let channel = EmbeddedChannel()
        /// The value the flow (or this test) last set `autoRead` to (an embedded channel keeps the last of each).
        func autoReads() -> [Bool] {
            channel.options.compactMap { $0.option is ChannelOptions.Types.AutoReadOption ? $0.value as? Bool : nil }
        }
        #expect(!flow.receivedResource(600, on: channel))
        var first: ReceiveCharge? = flow.charge(resource: 600)
        #expect(flow.receivedResource(600, on: channel))  // over the transfer budget: the handler stops reading
        try channel.setOption(.autoRead, value: false).wait()
        var second: ReceiveCharge? = flow.charge(resource: 600)
        #expect(flow.bufferedTransferBytes.now == 1200)
        #expect(flow.undelivered == 0)  // the other total is untouched
        first = nil
        #expect(flow.bufferedTransferBytes.now == 600)
        #expect(autoReads() == [false])  // above half the budget: still paused
        second = nil
        #expect(flow.bufferedTransferBytes.now == 0)
        #expect(autoReads() == [true])  // half the budget or less: reading again
        withExtendedLifetime((first, second)) {}
    }
}

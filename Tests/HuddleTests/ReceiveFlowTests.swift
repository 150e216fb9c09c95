import Testing

@testable import Huddle

@Suite("The receive budget: datagrams count in and out like messages, and are dropped past the budget")
struct ReceiveFlowTests {
    @Test func datagramsCountInAndAreDroppedPastTheBudget() {
        let flow = ReceiveFlow(budget: 1000)
        #expect(flow.admitDatagram(600))
        #expect(flow.undelivered == 600)
        #expect(!flow.admitDatagram(401))
        #expect(flow.undelivered == 600)
        #expect(flow.datagramsOverBudget == 1)
        #expect(flow.admitDatagram(400))
        #expect(flow.undelivered == 1000)
        #expect(!flow.admitDatagram(1))
        #expect(flow.datagramsOverBudget == 2)
        flow.consumed(600)
        flow.consumed(400)
        #expect(flow.undelivered == 0)
    }

    @Test func takingEveryAdmittedDatagramLeavesNothingOwed() {
        let flow = ReceiveFlow(budget: 32 * 1024)
        for size in [1, 200, 1200, 0, 999] {
            #expect(flow.admitDatagram(size))
            flow.consumed(size)
        }
        #expect(flow.undelivered == 0)
        #expect(flow.datagramsOverBudget == 0)
    }
}

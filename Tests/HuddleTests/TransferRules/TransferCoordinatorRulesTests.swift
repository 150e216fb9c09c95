import Foundation
import HuddleWire
import Testing

@testable import Huddle

/// The transfer table's rules, without I/O: one state per ID, offers admitted by ID and per-peer count, answered
/// offers taken out once, and what a lost connection ends.
@Suite("Transfer coordinator rules")
struct TransferCoordinatorRulesTests {
    let bob = PeerID(rawValue: "bob")
    let cy = PeerID(rawValue: "cy")

    func fileOffer(size: UInt64 = 10) -> TransferOffer {
        TransferOffer(id: .random(), name: "a.txt", size: size, resumeKey: Array(repeating: 7, count: 32))
    }

    func directoryOffer() -> DirectoryOffer {
        DirectoryOffer(id: .random(), name: "tree", entries: [])
    }

    /// A file from `peer` being received into memory (or, with `intoMemory: false`, as if into a file).
    func receiving(_ offer: TransferOffer, from peer: PeerID) -> IncomingFile {
        let transfer = IncomingTransfer(
            id: offer.id,
            peer: peer,
            name: offer.name,
            size: offer.size,
            contentKey: offer.resumeKey.hexString,
            type: offer.type,
            isDirectory: false,
            fileCount: 1
        )
        return IncomingFile(
            transfer: transfer,
            offer: offer,
            sink: .memory,
            hasher: FileHasher(),
            written: 0,
            progressInterval: 1 << 20
        )
    }

    /// Starts sending `id` to `peer`, expecting the ID to be free.
    func send(_ id: TransferID, to peer: PeerID, in table: inout TransferCoordinator) {
        let started = table.startSending(id, to: peer)
        #expect(started)
    }

    @Test func anOfferReusingAnyTransfersIDIsRefusedWhateverItsState() {
        var table = TransferCoordinator(maximumIncomingPerPeer: 8)
        let (offered, received, sent) = (fileOffer(), fileOffer(), TransferID.random())
        table.offered(offered, from: bob)
        table.receiving(receiving(received, from: bob))
        send(sent, to: bob, in: &table)
        for id in [offered.id, received.id, sent] {
            #expect(table.admit(offer: id, from: bob) == .reusesID)
            // From another peer too: the ID is taken, whoever names it.
            #expect(table.admit(offer: id, from: cy) == .reusesID)
        }
        #expect(table.admit(offer: .random(), from: bob) == .admitted)
        // Sending under a taken ID is refused as well.
        let refused = !table.startSending(offered.id, to: cy)
        #expect(refused)
        #expect(table.peer(of: offered.id) == bob)
    }

    @Test func thePerPeerLimitCountsOffersAndReceivingButNotSendingNorOtherPeers() {
        var table = TransferCoordinator(maximumIncomingPerPeer: 3)
        table.offered(fileOffer(), from: bob)
        table.offered(directoryOffer(), from: bob)
        send(.random(), to: bob, in: &table)
        table.offered(fileOffer(), from: cy)
        #expect(table.admit(offer: .random(), from: bob) == .admitted)
        table.receiving(receiving(fileOffer(), from: bob))
        #expect(table.admit(offer: .random(), from: bob) == .overLimit(3))
        #expect(table.admit(offer: .random(), from: cy) == .admitted)
    }

    @Test func anAnsweredOfferIsTakenOutOnceAndOnlyAnOfferIsTaken() {
        var table = TransferCoordinator(maximumIncomingPerPeer: 8)
        let (file, tree, sent) = (fileOffer(), directoryOffer(), TransferID.random())
        table.offered(file, from: bob)
        table.offered(tree, from: bob)
        send(sent, to: bob, in: &table)
        #expect(table.fileOffer(file.id) == file)
        #expect(table.fileOffer(tree.id) == nil)
        guard case .file(let taken)? = table.takeOffer(file.id) else {
            Issue.record("the file offer was not taken")
            return
        }
        #expect(taken == file)
        #expect(table.takeOffer(file.id) == nil)
        guard case .directory(let takenTree)? = table.takeOffer(tree.id) else {
            Issue.record("the directory offer was not taken")
            return
        }
        #expect(takenTree == tree)
        #expect(table.takeOffer(sent) == nil)
        #expect(table.sending(sent)?.peer == bob)
        #expect(table.transfers.count == 1)
    }

    @Test func aLostConnectionDropsItsOffersEndsItsReceivingAndLeavesItsSendingToTheirCalls() {
        var table = TransferCoordinator(maximumIncomingPerPeer: 8)
        let (offer, bobsFile, cysFile, sent) = (fileOffer(), fileOffer(), fileOffer(), TransferID.random())
        table.offered(offer, from: bob)
        table.receiving(receiving(bobsFile, from: bob))
        table.receiving(receiving(cysFile, from: cy))
        send(sent, to: bob, in: &table)
        let ended = table.connectionEnded(with: bob)
        #expect(ended.files.map(\.transfer.id) == [bobsFile.id])
        #expect(ended.directories.isEmpty)
        #expect(ended.sending == [sent])
        #expect(table.peer(of: offer.id) == nil)
        #expect(table.file(bobsFile.id) == nil)
        #expect(table.file(cysFile.id)?.transfer.peer == cy)
        // The sender's call forgets its transfer when it ends.
        #expect(table.sending(sent) != nil)
        #expect(Set(table.transfers.keys) == [cysFile.id, sent])
    }

    @Test func anOutgoingTransfersRulesChangeOnlyThroughItsID() {
        var table = TransferCoordinator(maximumIncomingPerPeer: 8)
        let (sent, offer) = (TransferID.random(), fileOffer())
        send(sent, to: bob, in: &table)
        table.offered(offer, from: bob)
        let start = ContinuousClock.now
        table.updateSending(sent) { $0.wait(answerDueBy: start + .seconds(30), isOffer: true) }
        #expect(table.sending(sent)?.isUnanswered(at: start + .seconds(30)) == true)
        // Not an outgoing transfer: nothing runs, nothing changes.
        let ran = table.updateSending(offer.id) { _ in true }
        #expect(ran == nil)
        #expect(table.fileOffer(offer.id) == offer)
    }

    @Test func memoryReservedIsTheOfferedSizeOfEachTransferIntoMemory() {
        var table = TransferCoordinator(maximumIncomingPerPeer: 8)
        table.receiving(receiving(fileOffer(size: 100), from: bob))
        table.receiving(receiving(fileOffer(size: 23), from: cy))
        table.offered(fileOffer(size: 1_000), from: bob)
        #expect(table.inMemoryReservedBytes == 123)
        #expect(table.partialsInUse.isEmpty)
    }
}

extension TransferCoordinatorRulesTests {
    @Test func aStagingDirectoryIsSettlingUntilEveryRunThatEndedIntoItHasSettled() {
        var table = TransferCoordinator(maximumIncomingPerPeer: 8)
        let root = URL(fileURLWithPath: "/tmp/staging-a")
        #expect(!table.isSettling(root))
        table.settling(root)
        table.settling(root)
        table.settled(root)
        #expect(table.isSettling(root))
        table.settled(root)
        #expect(!table.isSettling(root))
        // A settle that was never announced changes nothing.
        table.settled(root)
        #expect(!table.isSettling(root))
        #expect(!table.isSettling(URL(fileURLWithPath: "/tmp/staging-b")))
    }
}

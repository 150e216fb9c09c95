public import Crypto

/// One side's datagram keys: build a ``DatagramSealer`` and a ``DatagramOpener`` from them.
public struct DatagramKeys: Sendable {
    /// Key that seals packets we send.
    public var sendKey: SymmetricKey
    /// IV for packets we send.
    public var sendIV: [UInt8]
    /// The peer's connection ID, written as `dst_cid` on every packet we send.
    public var remoteConnectionID: DatagramConnectionID
    /// Key that opens packets we receive.
    public var receiveKey: SymmetricKey
    /// IV for packets we receive.
    public var receiveIV: [UInt8]
    /// Our connection ID: packets addressed to us carry it, anything else is dropped.
    public var localConnectionID: DatagramConnectionID

    /// Creates a key set from explicit values.
    public init(
        sendKey: SymmetricKey,
        sendIV: [UInt8],
        remoteConnectionID: DatagramConnectionID,
        receiveKey: SymmetricKey,
        receiveIV: [UInt8],
        localConnectionID: DatagramConnectionID
    ) {
        self.sendKey = sendKey
        self.sendIV = sendIV
        self.remoteConnectionID = remoteConnectionID
        self.receiveKey = receiveKey
        self.receiveIV = receiveIV
        self.localConnectionID = localConnectionID
    }
}

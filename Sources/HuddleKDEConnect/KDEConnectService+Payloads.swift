import Foundation
import HuddleBase
import HuddleForeign
import HuddleKDEConnectWire
import NIOConcurrencyHelpers
import NIOCore
import NIOFileSystem
import NIOFoundationCompat
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#endif

/// Files go on connections of their own (docs/kdeconnect.md, "Sharing"): the sender listens on a port it names in
/// the share packet, TLS server there; the receiver dials it, TLS client. Both show the link's certificates, and a
/// payload connection with any other certificate is refused before a byte of the file moves.
extension KDEConnectService {
    typealias PayloadChannel = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    /// Takes an accepted file: into a hidden partial file, never more than announced, then its name (nothing
    /// overwritten).
    func download(_ offered: Offered, into directory: URL) async throws {
        // The file comes from where it was offered, over TLS with the certificate that offered it, and only while
        // that certificate is still the paired device's.
        let expected = offered.certificate
        let stillPaired = state.withLockedValue { state in
            state.devices.devices[offered.deviceId].map {
                $0.certificate?.der == expected && $0.pairing.state == .paired
            }
        }
        guard stillPaired == true, let file = offered.offer.files.first else {
            throw KDEConnectError.notPaired(
                offered.offer.from.name,
                reason: "it is no longer linked with the certificate that offered the file"
            )
        }
        let writer = try ReceivedFileWriter(name: file.name, in: directory, expectedSize: file.size)
        let verifier = PresentedCertificate(expected: expected)
        let context = try credentials.context(server: false)
        let idle = configuration.limits.payloadIdleTimeout
        do {
            let channel = try await configuration.streams.connect(
                host: offered.host,
                port: offered.port,
                group: group,
                timeout: .seconds(10)
            ) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let tls = try NIOSSLClientHandler(
                        context: context,
                        serverHostname: nil,
                        customVerificationCallback: verifier.verify
                    )
                    try channel.pipeline.syncOperations.addHandlers(
                        tls,
                        IdleStateHandler(readTimeout: TimeAmount(idle)),
                        PayloadIdleHandler(
                            reason: "\(offered.offer.from.name) sent nothing for \(idle.components.seconds) s"
                        )
                    )
                    return try PayloadChannel(wrappingChannelSynchronously: channel)
                }
            }
            var reported: UInt64 = 0
            try await channel.executeThenClose { inbound, _ in
                for try await chunk in inbound {
                    try writer.write(chunk.readableBytesView)
                    // Reading on only when the limit allows: TCP holds the sender back meanwhile.
                    try await configuration.pacing.pace(
                        chunk.readableBytes,
                        .receiving,
                        device: offered.offer.from.fingerprint
                    )
                    if writer.written - reported >= 1 << 20 || writer.written == file.size {
                        reported = writer.written
                        emit(
                            .progress(
                                .init(
                                    offerID: offered.offer.id,
                                    fileName: file.name,
                                    completed: reported,
                                    total: file.size,
                                    isOutgoing: false
                                )
                            )
                        )
                    }
                    if writer.written == file.size { break }
                }
            }
            let url = try writer.finish(expectedSHA256: nil)
            emit(.received(offerID: offered.offer.id, file: file, at: url))
        } catch {
            let written = writer.written
            writer.abandon()
            if verifier.der != nil, verifier.der != expected {
                throw KDEConnectError.payload("the payload connection showed another certificate than the link's")
            }
            if let tls = error as? NIOSSLError, case .uncleanShutdown = tls {
                throw KDEConnectError.payload(
                    "\(file.name): the connection broke off after \(written) of \(file.size) bytes; nothing kept"
                )
            }
            throw error
        }
    }
}

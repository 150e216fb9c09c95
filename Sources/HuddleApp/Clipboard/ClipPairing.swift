public import Huddle
import HuddleWire

/// A first contact of the clipboard commands: asked whether to pair (the code compared on both screens); end of
/// input (no terminal, a service) is no, and said so.
public enum ClipPairing {
    public static func answer(
        _ request: PeerConnectionRequest,
        session: PeerSession,
        prompter: Prompter,
        autoAccept: Bool,
        say: @Sendable (String) -> Void
    )
        async
    {
        let who = "\(request.displayName) (\(request.deviceID.shortID))"
        let yes = await request.answer(autoAccept: autoAccept, prompter: prompter)
        if yes {
            await session.accept(request)
            return
        }
        await session.deny(request)
        say(
            "! not paired with \(who): answered no, or no terminal to ask (run this command in a terminal once "
                + "to compare the code)"
        )
    }
}

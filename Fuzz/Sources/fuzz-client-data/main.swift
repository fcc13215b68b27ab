import FuzzSupport
import WebAuthn

// clientDataJSON parsing (§5.8.1, with the core's own JSON reader), then the challenge a server
// would read from it.
FuzzDriver.run { bytes in
    guard let clientData = try? CollectedClientData(bytes) else { return }
    _ = Base64URL.decode(clientData.challenge)
}

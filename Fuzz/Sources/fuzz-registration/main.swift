import FuzzSupport
import WebAuthn

// Full registration verification (§7.1) against the vectors' relying party and trust anchors, every
// attestation format enabled; see RegistrationInput for the input layout.
let anchors = FuzzRelyingParty.loadAnchors()

FuzzDriver.run { bytes in
    let input = RegistrationInput(decoding: bytes)
    let verifier = RegistrationVerifier(relyingParty: input.relyingParty, trust: input.trust(anchors: anchors))
    _ = try? verifier.verify(input.response, expecting: input.expectation)
}

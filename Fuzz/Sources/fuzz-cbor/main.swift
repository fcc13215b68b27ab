import FuzzSupport
import WebAuthn

// CBOR decoding (the bounded pre-scan, then libcbor): any input is refused with an error or decoded;
// a decoded value must survive encoding and decoding again unchanged.
let decoder = CBORDecoder()

FuzzDriver.run { bytes in
    guard let value = try? decoder.decode(bytes) else { return }
    let encoded = CBOREncoder.encode(value)
    guard encoded.count <= decoder.limits.maximumInputSize else { return }
    do {
        let again = CBOREncoder.encode(try decoder.decode(encoded))
        guard again == encoded else {
            fatalError("CBOR round trip changed \(value): \(encoded) became \(again)")
        }
    } catch {
        fatalError("the decoder refuses what the encoder wrote for \(value): \(error)")
    }
}

#ifndef LATCHKEY_SHIMS_H
#define LATCHKEY_SHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

/// Builds an EC public key from an uncompressed point on the named group ("P-256", "P-384",
/// "P-521", "secp256k1"). Returns NULL when the point is not on the curve.
EVP_PKEY *latchkey_ec_public_key(const char *group_name, const uint8_t *point, size_t point_length);

/// Builds an RSA public key from big-endian modulus and exponent bytes.
EVP_PKEY *latchkey_rsa_public_key(const uint8_t *modulus, size_t modulus_length,
                                  const uint8_t *exponent, size_t exponent_length);

/// The EC group name of an EC key ("prime256v1", ...), written into `buffer`.
int latchkey_ec_group_name(EVP_PKEY *key, char *buffer, size_t buffer_length);

/// The uncompressed EC point of an EC key; returns its length, or 0 on error.
size_t latchkey_ec_point(EVP_PKEY *key, uint8_t *buffer, size_t buffer_length);

/// Verifies that `leaf` chains, through the untrusted `intermediates`, to one of `anchors`, at
/// `verification_time` (seconds since 1970) when `use_time` is set, else now. Anchors may be
/// intermediate CAs (partial chains are allowed). Returns 1 when the chain verifies; otherwise 0
/// and OpenSSL's reason in `error_buffer`.
int latchkey_verify_chain(X509 *leaf, X509 *const *intermediates, int intermediate_count,
                          X509 *const *anchors, int anchor_count, int use_time, int64_t verification_time,
                          char *error_buffer, size_t error_buffer_length);
#endif

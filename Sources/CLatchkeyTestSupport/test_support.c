#include "test_support.h"
#include "key_shims.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/rsa.h>
#include <openssl/x509v3.h>

/// A new v3 certificate with serial, validity and public key set; NULL on failure.
static X509 *begin_certificate(EVP_PKEY *subject_key, long serial, int64_t not_before, int64_t not_after) {
    X509 *certificate = X509_new();
    if (certificate == NULL) return NULL;
    if (X509_set_version(certificate, 2) != 1 ||
        ASN1_INTEGER_set(X509_get_serialNumber(certificate), serial) != 1 ||
        X509_time_adj_ex(X509_getm_notBefore(certificate), 0, 0, &(time_t){(time_t)not_before}) == NULL ||
        X509_time_adj_ex(X509_getm_notAfter(certificate), 0, 0, &(time_t){(time_t)not_after}) == NULL ||
        X509_set_pubkey(certificate, subject_key) != 1) {
        X509_free(certificate);
        return NULL;
    }
    return certificate;
}

/// Signs `certificate` when `ok`; frees it and returns NULL otherwise or when signing fails.
static X509 *finish_certificate(X509 *certificate, EVP_PKEY *issuer_key, int ok) {
    if (ok) ok = X509_sign(certificate, issuer_key, EVP_sha256()) > 0;
    ERR_clear_error();
    if (!ok) {
        X509_free(certificate);
        return NULL;
    }
    return certificate;
}

X509 *lkt_issue_certificate(EVP_PKEY *subject_key, const char *common_name, X509 *issuer,
                            EVP_PKEY *issuer_key, int is_ca, long serial,
                            int64_t not_before, int64_t not_after) {
    X509 *certificate = begin_certificate(subject_key, serial, not_before, not_after);
    if (certificate == NULL) return NULL;
    X509_NAME *name = X509_get_subject_name(certificate);
    int ok = X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, (const unsigned char *)"Latchkey Tests", -1, -1, 0) == 1 &&
             X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0) == 1 &&
             X509_set_issuer_name(certificate, issuer != NULL ? X509_get_subject_name(issuer) : name) == 1;
    X509 *issuing = issuer != NULL ? issuer : certificate;
    if (ok) {
        ok = lkk_add_named_extension(certificate, issuing, NID_basic_constraints, is_ca ? "critical,CA:TRUE" : "critical,CA:FALSE") &&
             lkk_add_named_extension(certificate, issuing, NID_key_usage, is_ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature") &&
             lkk_add_named_extension(certificate, issuing, NID_subject_key_identifier, "hash") &&
             (issuer == NULL || lkk_add_named_extension(certificate, issuing, NID_authority_key_identifier, "keyid:always"));
    }
    return finish_certificate(certificate, issuer_key, ok);
}

size_t lkt_certificate_der(X509 *certificate, uint8_t *buffer, size_t buffer_length) {
    int length = i2d_X509(certificate, NULL);
    if (length <= 0 || (size_t)length > buffer_length) return 0;
    unsigned char *cursor = buffer;
    return i2d_X509(certificate, &cursor) == length ? (size_t)length : 0;
}

X509 *lkt_issue_attestation_certificate(EVP_PKEY *subject_key, const char *common_name,
                                        const char *organizational_unit, const uint8_t *aaguid,
                                        X509 *issuer, EVP_PKEY *issuer_key, long serial,
                                        int64_t not_before, int64_t not_after) {
    X509 *certificate = begin_certificate(subject_key, serial, not_before, not_after);
    if (certificate == NULL) return NULL;
    X509_NAME *name = X509_get_subject_name(certificate);
    int ok = X509_NAME_add_entry_by_txt(name, "C", MBSTRING_UTF8, (const unsigned char *)"US", -1, -1, 0) == 1 &&
             X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, (const unsigned char *)"Latchkey Tests", -1, -1, 0) == 1 &&
             (organizational_unit == NULL ||
              X509_NAME_add_entry_by_txt(name, "OU", MBSTRING_UTF8, (const unsigned char *)organizational_unit, -1, -1, 0) == 1) &&
             X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0) == 1 &&
             X509_set_issuer_name(certificate, X509_get_subject_name(issuer)) == 1 &&
             lkk_add_named_extension(certificate, issuer, NID_basic_constraints, "critical,CA:FALSE") &&
             lkk_add_named_extension(certificate, issuer, NID_authority_key_identifier, "keyid:always");
    if (ok && aaguid != NULL) {
        uint8_t value[18] = {0x04, 16};
        for (int i = 0; i < 16; i++) value[2 + i] = aaguid[i];
        ASN1_OBJECT *oid = OBJ_txt2obj("1.3.6.1.4.1.45724.1.1.4", 1);
        ASN1_OCTET_STRING *data = ASN1_OCTET_STRING_new();
        X509_EXTENSION *extension = NULL;
        ok = oid != NULL && data != NULL && ASN1_OCTET_STRING_set(data, value, sizeof value) == 1 &&
             (extension = X509_EXTENSION_create_by_OBJ(NULL, oid, 0, data)) != NULL &&
             X509_add_ext(certificate, extension, -1) == 1;
        X509_EXTENSION_free(extension);
        ASN1_OCTET_STRING_free(data);
        ASN1_OBJECT_free(oid);
    }
    return finish_certificate(certificate, issuer_key, ok);
}

void lkt_free_certificate(X509 *certificate) { X509_free(certificate); }

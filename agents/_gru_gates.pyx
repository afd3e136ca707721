# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The GRU's gate arithmetic for :class:`agents.networks._PackedGRU`, one pass over a step's rows.

``_PackedGRU`` runs a recurrent step as one matrix product (``h W_hh^T``, left to torch)
and the gates around it; written as torch operations the gates are ~8 small operations a
step forward and ~14 backward, each a dispatch and a pass over ``(B, 3H)`` floats.  These
kernels do the same arithmetic in one pass each, on float32 rows of known layout (the
callers pass ``data_ptr()`` of contiguous tensors), with the GIL released:

* :func:`forward`: ``r, z = sigmoid(gi_rz + gh_rz)``, ``n = tanh(gi_n + r gh_n)``,
  ``h' = (h - n) z + n``, and the state the next step reads (``h'``, or that step's stored
  state where a new sequence starts);
* :func:`backward_gates`: from the gradient ``dh`` of the step's output, those of ``gi``
  and ``gh`` (``(B, 3H)``, gate order r, z, n) and ``dh z`` (the gradient ``h`` gets
  directly);
* :func:`backward_state`: after torch's product ``d_gh W_hh``, the gradient of the state
  the step read: to the stored state where a sequence started there, else on to the step
  before, with that step's output gradient added.

``exp`` is a Cephes-style polynomial (``x = k ln 2 + r``, ``|r| <= ln 2 / 2``, degree 6;
about 1 ulp on [-87, 88], clamped outside), ``sigmoid(a) = 1 / (1 + exp(-a))`` and
``tanh(a) = sign(a) (1 - e) / (1 + e)`` with ``e = exp(-2|a|)``: branch-free, so the loops
vectorise (``-fno-trapping-math``; with GCC on x86-64 glibc, ``target_clones`` builds
AVX-512, AVX2 and baseline copies and picks one when the module loads).  The results
agree with torch's ``sigmoid`` and ``tanh`` to a few float32 ulps, not bit for bit
(``tests/test_networks.py`` compares the two paths).
"""
cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && defined(__GLIBC__)
    #define TR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
    #else
    #define TR_CLONES
    #endif
    static inline float tr_exp(float x) {
        x = x < -87.0f ? -87.0f : x;
        x = x > 88.0f ? 88.0f : x;
        float fn = x * 1.44269504088896341f;
        float rn = (fn + 12582912.0f) - 12582912.0f;
        int32_t n = (int32_t)rn;
        float r = x - rn * 0.693359375f;
        r = r - rn * -2.12194440e-4f;
        float r2 = r * r;
        float p = 1.9875691500E-4f;
        p = p * r + 1.3981999507E-3f;
        p = p * r + 8.3334519073E-3f;
        p = p * r + 4.1665795894E-2f;
        p = p * r + 1.6666665459E-1f;
        p = p * r + 5.0000001201E-1f;
        p = p * r2 + r + 1.0f;
        int32_t bits = (n + 127) << 23;
        float scale; memcpy(&scale, &bits, 4);
        return p * scale;
    }
    TR_CLONES
    static void tr_gru_forward(const float* restrict gi, const float* restrict gh, const float* restrict prev,
                               float* restrict rz, float* restrict n, float* restrict out,
                               const uint8_t* restrict restart_next, const float* restrict h0_next,
                               float* restrict prev_next, long B, long H) {
        for (long b = 0; b < B; b++) {
            const float* gib = gi + b * 3 * H; const float* ghb = gh + b * 3 * H; const float* pb = prev + b * H;
            float* rzb = rz + b * 2 * H; float* nb = n + b * H; float* ob = out + b * H;
            for (long j = 0; j < 2 * H; j++) rzb[j] = 1.0f / (1.0f + tr_exp(-(gib[j] + ghb[j])));
            for (long j = 0; j < H; j++) {
                float a = gib[2 * H + j] + rzb[j] * ghb[2 * H + j];
                float m = a < 0.0f ? -a : a;
                float e = tr_exp(-2.0f * m);
                float t = (1.0f - e) / (1.0f + e);
                t = a < 0.0f ? -t : t;
                nb[j] = t;
                ob[j] = (pb[j] - t) * rzb[H + j] + t;
            }
            if (prev_next) memcpy(prev_next + b * H, restart_next[b] ? h0_next + b * H : ob, H * sizeof(float));
        }
    }
    TR_CLONES
    static void tr_gru_backward_gates(const float* restrict dh, const float* restrict rz, const float* restrict n,
                                      const float* restrict gh, const float* restrict prev, float* restrict d_gi,
                                      float* restrict d_gh, float* restrict dh_z, long B, long H) {
        for (long b = 0; b < B; b++) {
            const float* g = dh + b * H; const float* rzb = rz + b * 2 * H; const float* nb = n + b * H;
            const float* ghb = gh + b * 3 * H; const float* pb = prev + b * H;
            float* dgi = d_gi + b * 3 * H; float* dgh = d_gh + b * 3 * H; float* dz = dh_z + b * H;
            for (long j = 0; j < H; j++) {
                float r = rzb[j], z = rzb[H + j], nn = nb[j], gj = g[j];
                float gz = gj * z;
                dz[j] = gz;
                float dn = (gj - gz) * (1.0f - nn * nn);
                dgi[2 * H + j] = dn;
                dgh[2 * H + j] = dn * r;
                float dr = dn * ghb[2 * H + j] * (r - r * r);
                float dzz = gj * (pb[j] - nn) * (z - z * z);
                dgi[j] = dr; dgh[j] = dr;
                dgi[H + j] = dzz; dgh[H + j] = dzz;
            }
        }
    }
    TR_CLONES
    static void tr_gru_backward_state(const float* restrict d_prev, const float* restrict dh_z,
                                      const uint8_t* restrict restart, const float* restrict d_out_prev,
                                      float* restrict d_h0, float* restrict dh_next, long B, long H, int first) {
        for (long b = 0; b < B; b++) {
            const float* dp = d_prev + b * H; const float* dz = dh_z + b * H;
            if (first || restart[b]) {
                if (d_h0) for (long j = 0; j < H; j++) d_h0[b * H + j] = dp[j] + dz[j];
                if (!first) memcpy(dh_next + b * H, d_out_prev + b * H, H * sizeof(float));
            } else {
                const float* dop = d_out_prev + b * H; float* dn = dh_next + b * H;
                for (long j = 0; j < H; j++) dn[j] = dp[j] + dz[j] + dop[j];
            }
        }
    }
    """
    void tr_gru_forward(const float* gi, const float* gh, const float* prev, float* rz, float* n, float* out,
                        const unsigned char* restart_next, const float* h0_next, float* prev_next, long B, long H) nogil
    void tr_gru_backward_gates(const float* dh, const float* rz, const float* n, const float* gh, const float* prev,
                               float* d_gi, float* d_gh, float* dh_z, long B, long H) nogil
    void tr_gru_backward_state(const float* d_prev, const float* dh_z, const unsigned char* restart,
                               const float* d_out_prev, float* d_h0, float* dh_next, long B, long H, int first) nogil

from libc.stdint cimport uintptr_t


def forward(uintptr_t gi, uintptr_t gh, uintptr_t prev, uintptr_t rz, uintptr_t n, uintptr_t out,
            uintptr_t restart_next, uintptr_t h0_next, uintptr_t prev_next, long B, long H):
    """One step's gates forward, in place.  Addresses of contiguous float32 rows: ``gi``, ``gh``
    ``(B, 3H)`` (the input and recurrent sides, ``gh`` with its bias), ``prev`` ``(B, H)`` (the
    state the step read); written: ``rz`` ``(B, 2H)`` (``r`` then ``z``), ``n`` and ``out``
    ``(B, H)``.  Unless ``prev_next`` is 0 (the last step), also ``prev_next`` ``(B, H)``: row
    ``b`` of ``h0_next`` where byte ``restart_next[b]`` is nonzero, else of ``out``."""
    with nogil:
        tr_gru_forward(<const float*>gi, <const float*>gh, <const float*>prev, <float*>rz, <float*>n, <float*>out,
                       <const unsigned char*>restart_next, <const float*>h0_next, <float*>prev_next, B, H)


def backward_gates(uintptr_t dh, uintptr_t rz, uintptr_t n, uintptr_t gh, uintptr_t prev, uintptr_t d_gi,
                   uintptr_t d_gh, uintptr_t dh_z, long B, long H):
    """One step's gates backward.  Reads ``dh`` ``(B, H)`` (the gradient of the step's output)
    and what :func:`forward` kept (``rz``, ``n``, ``gh``, ``prev``); writes the gradients of
    ``gi`` and ``gh`` (``d_gi``, ``d_gh``, ``(B, 3H)``, float32) and ``dh_z`` ``(B, H)`` (``dh z``)."""
    with nogil:
        tr_gru_backward_gates(<const float*>dh, <const float*>rz, <const float*>n, <const float*>gh,
                              <const float*>prev, <float*>d_gi, <float*>d_gh, <float*>dh_z, B, H)


def backward_state(uintptr_t d_prev, uintptr_t dh_z, uintptr_t restart, uintptr_t d_out_prev, uintptr_t d_h0,
                   uintptr_t dh_next, long B, long H, bint first):
    """Route the gradient of the state a step read, ``d_prev + dh_z`` (``(B, H)`` each, ``d_prev``
    being ``d_gh W_hh``): at the first step (``first``) all of it to ``d_h0`` (unless 0); else,
    row by row, to ``d_h0`` where byte ``restart[b]`` is nonzero (the sequence started from its
    stored state) and ``dh_next = d_out_prev`` there, elsewhere ``dh_next = d_prev + dh_z +
    d_out_prev`` (the step before's output gradient, ``d_out[t - 1]``); ``d_h0``'s other rows are
    left as they are (zero)."""
    with nogil:
        tr_gru_backward_state(<const float*>d_prev, <const float*>dh_z, <const unsigned char*>restart,
                              <const float*>d_out_prev, <float*>d_h0, <float*>dh_next, B, H, first)

import time, torch, torch.nn.functional as F
def lm_full(t): return F.avg_pool2d(t, 11, 1, 5, count_include_pad=False)
def lm_sep(t):
    t = F.avg_pool2d(t, (1, 11), 1, (0, 5), count_include_pad=False)
    return F.avg_pool2d(t, (11, 1), 1, (5, 0), count_include_pad=False)
def make(lm):
    def ssim(a, b, c1=0.01 ** 2, c2=0.03 ** 2):
        mu_a, mu_b = lm(a), lm(b)
        var_a = lm(a * a) - mu_a ** 2; var_b = lm(b * b) - mu_b ** 2; cov = lm(a * b) - mu_a * mu_b
        return ((2 * mu_a * mu_b + c1) * (2 * cov + c2) / ((mu_a ** 2 + mu_b ** 2 + c1) * (var_a + var_b + c2))).mean()
    return ssim
torch.manual_seed(0); a = torch.rand(4, 3, 48, 48, requires_grad=True); b = torch.rand(4, 3, 48, 48)
def bench(f, n=30):
    for _ in range(3): f(a, b).backward()
    t = time.perf_counter()
    for _ in range(n): f(a, b).backward()
    return (time.perf_counter() - t) / n * 1e3
print('full eager ms', round(bench(make(lm_full)), 3))
print('full compiled ms', round(bench(torch.compile(make(lm_full))), 3))
print('sep eager ms', round(bench(make(lm_sep)), 3))
print('sep compiled ms', round(bench(torch.compile(make(lm_sep))), 3))
print('sep==full', (make(lm_sep)(a, b) - make(lm_full)(a, b)).abs().item())

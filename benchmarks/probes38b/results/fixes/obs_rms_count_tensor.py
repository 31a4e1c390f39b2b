# Observation normalisation with a running mean/std (the RunningMeanStd of CleanRL / SB3's
# VecNormalize): the update and the normalisation are compiled together; count is a float.
import torch

torch.manual_seed(0)


class RunningMeanStd:
    def __init__(self, shape):
        self.mean = torch.zeros(shape)
        self.var = torch.ones(shape)
        self.count = torch.tensor(1e-4)

    def update(self, x):
        batch_mean, batch_var, n = x.mean(0), x.var(0, unbiased=False), x.shape[0]
        delta = batch_mean - self.mean
        tot = self.count + n
        self.mean = self.mean + delta * n / tot
        m2 = self.var * self.count + batch_var * n + delta.pow(2) * self.count * n / tot
        self.var = m2 / tot
        self.count = tot


def normalize_obs(rms, obs):
    rms.update(obs)
    return ((obs - rms.mean) / torch.sqrt(rms.var + 1e-8)).clamp(-10.0, 10.0)


compiled_normalize = torch.compile(normalize_obs)
rms_eager, rms_comp = RunningMeanStd(3), RunningMeanStd(3)
for t in range(10):
    obs = torch.randn(16, 3) * 2.0 + 1.0
    out_e = normalize_obs(rms_eager, obs)
    out_c = compiled_normalize(rms_comp, obs)
    diff = (out_e - out_c).abs().max().item()
    print(t, "count", rms_eager.count, rms_comp.count, "max diff", round(diff, 4))

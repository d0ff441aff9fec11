"""xarray DataArrays over dlnumba arrays stay dlnumba, with the values xarray gives over NumPy.

Each operation runs on a DataArray over a dlnumba array and on the same DataArray over NumPy;
the first must hold a dlnumba array, equal (dtype included) to the second. Reductions with
xarray's default ``skipna`` go through dlnumba's NaN-skipping extension (``nanmean`` ...).
"""

import warnings

import numpy as np
import pytest

xr = pytest.importorskip("xarray")

import dlnumba as xp  # noqa: E402

VALUES = np.arange(12.0).reshape(3, 4)
WITH_NAN = np.where(VALUES % 5 == 1, np.nan, VALUES)

OPERATIONS = {
    "add": lambda d: d + d,
    "scalar arithmetic": lambda d: 2 * d - 1.5,
    "integer division": lambda d: d.astype(np.int64) / 2,
    "comparison": lambda d: d > 3.0,
    "NumPy ufunc": np.sqrt,
    "sum": lambda d: d.sum(),
    "mean": lambda d: d.mean(),
    "mean over a dim": lambda d: d.mean("x"),
    "max": lambda d: d.max("y"),
    "min": lambda d: d.min(),
    "std": lambda d: d.std(),
    "var with ddof": lambda d: d.var("x", ddof=1),
    "prod": lambda d: d.prod("x"),
    "argmax": lambda d: d.argmax("y"),
    "cumsum": lambda d: d.cumsum("x"),
    "mean without skipna": lambda d: d.mean(skipna=False),
    "max without skipna": lambda d: d.max(skipna=False),
    "mean of integers": lambda d: d.astype(np.int32).mean(),
    "xr.where": lambda d: xr.where(d > 3.0, d, 0.0),
    "where with other": lambda d: d.where(d > 3.0, -1.0),
    "where": lambda d: d.where(d > 3.0),
    "shift": lambda d: d.shift(x=1),
    "pad": lambda d: d.pad(y=(1, 2), constant_values=-1.0),
    "shift of integers": lambda d: d.astype(np.int16).shift(y=-2),
    "concat": lambda d: xr.concat([d, d], dim="x"),
    "concat along a new dim": lambda d: xr.concat([d, d], dim="z"),
    "isel": lambda d: d.isel(x=1, y=slice(1, 3)),
    "isel with a list": lambda d: d.isel(y=[0, 2]),
    "sel": lambda d: d.sel(x=20),
    "sel with a list": lambda d: d.sel(y=["a", "c"]),
    "transpose": lambda d: d.transpose(),
    "broadcast": lambda d: d + d.isel(x=0),
    "fillna": lambda d: d.fillna(0.0),
    "isnull": lambda d: d.isnull(),
    "clip, round": lambda d: d.clip(1.0, 5.0).round(),
    "stack": lambda d: d.stack(z=("x", "y")),
    "groupby mean": lambda d: d.groupby("x").mean(),
    "Dataset mean": lambda d: xr.Dataset({"a": d}).mean()["a"],
    "deep copy": lambda d: d.copy(deep=True),
}


def data_array(values, wrap):
    return xr.DataArray(wrap(values), dims=("x", "y"),
                        coords={"x": [10, 20, 30], "y": list("abcd")})


@pytest.mark.parametrize("values", [VALUES, WITH_NAN], ids=["finite", "with NaN"])
@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_operations_stay_dlnumba(name, values):
    operation = OPERATIONS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's all-NaN warnings
        got = operation(data_array(values, xp.asarray))
        expected = operation(data_array(values, np.asarray))
    assert isinstance(got.data, xp.ndarray), type(got.data)
    assert got.dims == expected.dims
    np.testing.assert_array_equal(np.asarray(got.data), expected.values)
    assert np.asarray(got.data).dtype == expected.dtype

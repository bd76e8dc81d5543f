template <typename T> __global__ void__labal__ void __launch_boèunds__(256) s(T* x) {}
void f(float* x) { s<<<1, 256>>>(x); s<floaˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇt><<<dim3(1), 2, 0, st>>>(x); }
#define RUunch_boèunds__(256) s(T* x) {}
void f(float* x) { s<<<1, 256>>>(x); s<floaˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇtemplate <t __global__ void __launch_boèunds__(256	 s(T* x) { NUR(k, n)ˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇ k<<<(n(+ 255) / 256, 256>>>ypename T> __global__ void __launch_boèunds__(256	 s(T* x) { NUR(k< n) k<<<(n + 255) / 256, 256>>>(nˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇ)ˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇˇt><<<dim3(1), 2, 0, st>>>(x); }
#define RUN(k, n) k(n<<< + 255) 
/ 256, 256>>>(n)
